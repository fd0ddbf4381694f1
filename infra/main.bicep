// The community platform API on Azure: Azure Functions on Azure Container Apps, Azure SQL, queue
// storage, Key Vault, Log Analytics with cold storage, Application Insights, Communication
// Services, action groups, every alert of the service spec (infra/alerts/*.json) and a workbook.
// Deployed with `azd up` (azure.yaml at the repository root); parameters in main.parameters.json,
// explained in infra/README.md. No secret value is written in this file or in the parameter file.
targetScope = 'subscription'

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

@minLength(1)
@maxLength(20)
@description('Name of the azd environment (for example dev, staging, production); part of every resource name.')
param environmentName string

@minLength(1)
@description('Azure region of the resources.')
param location string

@description('Tags added to every resource.')
param tags object = {}

// ---------------------------------------------------------------------------------------------
// The function app
// ---------------------------------------------------------------------------------------------

@description('Container image of the app. azd sets it (SERVICE_API_IMAGE_NAME) after the first deploy; empty on the very first provision, which starts a placeholder image.')
param apiImageName string = ''

@minValue(1)
@description('Minimum replicas. At least 1: the queue-depth and session-sweep timers must fire, and the replica-count alert treats 0 as an outage.')
param minReplicas int = 1

@minValue(1)
@description('Maximum replicas.')
param maxReplicas int = 10

@description('CPU cores per replica (Consumption profile: 0.25 to 4).')
param containerCpu string = '1.0'

@description('Memory per replica, twice the cores in GiB on the Consumption profile.')
param containerMemory string = '2Gi'

@minValue(3)
@maxValue(600)
@description('Seconds from the SIGTERM Container Apps sends a replica (a deploy, a scale-in) to its SIGKILL: the container app\'s terminationGracePeriodSeconds and the app\'s SHUTDOWN_GRACE_SECONDS, one value. The app cuts provider calls off at two thirds of it (at most 10 s before its end), gives unsent deliveries back and exits before the SIGKILL.')
param shutdownGraceSeconds int = 30

@allowed(['production', 'test'])
@description('APP_ENV of the app. Production refuses development defaults.')
param appEnv string = 'production'

@allowed(['error', 'warn', 'info'])
@description('LOG_LEVEL of the app (debug is refused in production).')
param logLevel string = 'info'

@description('IDP_ISSUER: the expected iss of identity-provider ID tokens.')
param idpIssuer string

@description('IDP_AUDIENCE: the expected aud of identity-provider ID tokens (the client id of the mobile app).')
param idpAudience string

@description('IDP_JWKS_URI: the identity provider JWKS URL (https).')
param idpJwksUri string

@description('IDP_ALGORITHMS: allowed JWS algorithms, comma separated.')
param idpAlgorithms string = 'RS256'

@allowed(['active', 'pending_approval'])
@description('NEW_USER_STATUS: status of a user created on first sign-in.')
param newUserStatus string = 'active'

@description('BOOTSTRAP_ADMIN_SUBJECTS: identities made admin on first sign-in, comma separated, each <issuer>|<subject> (a bare sub only with a single provider).')
param bootstrapAdminSubjects string = ''

// The client's address for the per-address sign-in limits. The Container Apps ingress appends the
// address it received the request from to X-Forwarded-For (anything the client sent stays to its
// left), and the Functions host hands the worker the request's headers unchanged: the rightmost
// entry is the client, one hop. At least 1: with 0 every client would share one address limit.
// Raise it by one for each proxy added in front (Front Door, Application Gateway).
@minValue(1)
@description('TRUST_PROXY_HOPS: proxies in front of the app whose X-Forwarded-For is trusted (1: the Container Apps ingress).')
param trustProxyHops int = 1

@description('SMS_MONTHLY_CAP_USD: the SMS spend cap (the spec recommends 30 USD per month).')
param smsMonthlyCapUsd int = 30

@description('Deploy Azure Communication Services (SMS and e-mail), reached by the app\'s identity (ACS_ENDPOINT, no key), with an Event Grid system topic for its delivery reports.')
param deployCommunicationServices bool = true

@description('Where Communication Services keeps its data at rest.')
param communicationDataLocation string = 'United States'

@description('ACS_SMS_FROM: the SMS sender number bought in Communication Services (E.164); empty until one is bought.')
param acsSmsFrom string = ''

@minLength(1)
@maxLength(32)
@description('CONSENT_TERMS_VERSION: the version of the terms parents accept for a child account, recorded with each consent (e.g. 2025-06); change it when the terms change.')
param consentTermsVersion string

// ---------------------------------------------------------------------------------------------
// Secrets: values come only from the azd environment (`azd env set`), never from a file, and are
// written to Key Vault; the app reads them as Key Vault references.
// ---------------------------------------------------------------------------------------------

@secure()
@description('CHILD_SECRET_PEPPER, at least 32 characters. Needed once, on the first provision (it creates the Key Vault secret); leave it empty afterwards to keep the value only in Key Vault.')
param childSecretPepper string = ''

@secure()
@description('EXPO_ACCESS_TOKEN for the Expo push service, when the Expo project requires one. Written to Key Vault when given.')
param expoAccessToken string = ''

@description('Whether the Key Vault holds an expo-access-token secret for the app (set true once it was written).')
param expoAccessTokenConfigured bool = false

// ---------------------------------------------------------------------------------------------
// Database
// ---------------------------------------------------------------------------------------------

@description('Display name of the Microsoft Entra group that administers the SQL server (Entra-only authentication).')
param sqlAdminGroupName string

@description('Object id of that Microsoft Entra group.')
param sqlAdminGroupObjectId string

@description('SKU of the database (default: General Purpose serverless, 1 vCore, auto-pause off so the timers never wait on a resume).')
param sqlDatabaseSku object = {
  name: 'GP_S_Gen5'
  tier: 'GeneralPurpose'
  family: 'Gen5'
  capacity: 1
}

@minValue(1)
@description('Maximum size of the database in GiB (the storage alert fires at 80% of it).')
param sqlMaxSizeGiB int = 32

@minValue(1)
@maxValue(100)
@description('Connections each replica keeps to the database at most (Max Pool Size). maxReplicas x this must stay below the database\'s concurrent workers (GP_S_Gen5_1: 75), or busy replicas get error 10928; see infra/README.md.')
param sqlMaxPoolSize int = 6

// ---------------------------------------------------------------------------------------------
// Logs and cold storage
// ---------------------------------------------------------------------------------------------

@minValue(30)
@description('Retention of the Log Analytics workspace in days (spec: 30 days; paid tier).')
param logRetentionDays int = 30

@minValue(31)
@description('Days exported logs stay in the cold-storage account before the lifecycle policy deletes them.')
param coldStorageRetentionDays int = 365

@minValue(1)
@description('Capacity budgeted for the cold-storage account in GiB; the blob capacity alert fires at 80% of it.')
param coldStorageCapacityGiB int = 100

// ---------------------------------------------------------------------------------------------
// Alerting: who is paged, who reads the digest (per azd environment)
// ---------------------------------------------------------------------------------------------

@description('Name of the platform owner who is paged by critical alerts.')
param ownerName string

@description('Country calling code of the owner\'s phone, without +.')
param ownerPhoneCountryCode string = '1'

@description('The owner\'s phone number for SMS and voice pages (national number, digits only).')
param ownerPhoneNumber string

@description('The e-mail of the owner\'s Azure account, for push notifications in the Azure mobile app; empty for none.')
param ownerPushEmail string = ''

@secure()
@description('Incoming-webhook URL of the on-call channel (Teams, Slack, ...): it embeds a token, so it only comes from the azd environment. Empty for none.')
param onCallWebhookUrl string = ''

@description('Addresses of the warning digest, comma separated (a shared mailbox or a list read the next business day).')
param digestEmailAddresses string

@minValue(1)
@description('The expected monthly cost in USD: the budget, whose notifications fire at 115% (actual and forecast), and the app\'s daily cost check (COST_EXPECTED_MONTHLY_USD), whose alert fires above 115% of it spread over the days.')
param expectedMonthlyCostUsd int = 150

@description('Deploy the budget and the app\'s daily cost check (COST_SCOPE and Cost Management Reader for its identity); needs a subscription type that Cost Management supports.')
param deployCostAlerts bool = true

@description('First day of the budget period (yyyy-MM-01).')
param budgetStartDate string = utcNow('yyyy-MM-01')

@description('Base URL of the repository files (for example https://github.com/org/repo/blob/main/), put before docs/runbooks/<alert>.md in each alert.')
param runbookBaseUrl string = ''

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

var token = toLower(uniqueString(subscription().id, environmentName, location))
var namePrefix = 'cp-${toLower(environmentName)}'
var allTags = union(tags, { 'azd-env-name': environmentName, workload: 'community-platform' })

// The alert catalogue: every alert of the service spec and the SLO burn-rate alerts, as data.
var alertFiles = [
  loadJsonContent('alerts/critical.json')
  loadJsonContent('alerts/warning.json')
  loadJsonContent('alerts/infrastructure.json')
  loadJsonContent('alerts/slo-burn-rate.json')
]
var alertCatalogue = flatten(map(alertFiles, file => file.alerts))

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: 'rg-${namePrefix}'
  location: location
  tags: allTags
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: 'id-${namePrefix}'
    location: location
    tags: allTags
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    location: location
    tags: allTags
    workspaceName: 'log-${namePrefix}'
    appInsightsName: 'appi-${namePrefix}'
    coldStorageName: take('stlog${token}', 24)
    retentionInDays: logRetentionDays
    coldStorageRetentionDays: coldStorageRetentionDays
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: take('stapp${token}', 24)
    location: location
    tags: allTags
    principalId: identity.outputs.principalId
    workspaceId: monitoring.outputs.workspaceId
  }
}

module keyVault 'modules/key-vault.bicep' = {
  name: 'key-vault'
  scope: rg
  params: {
    name: take('kv-${take(toLower(environmentName), 8)}-${token}', 24)
    location: location
    tags: allTags
    principalId: identity.outputs.principalId
    appInsightsName: monitoring.outputs.appInsightsName
    workspaceId: monitoring.outputs.workspaceId
    childSecretPepper: childSecretPepper
    expoAccessToken: expoAccessToken
  }
}

module communication 'modules/communication.bicep' = if (deployCommunicationServices) {
  name: 'communication'
  scope: rg
  params: {
    name: 'acs-${namePrefix}-${take(token, 6)}'
    emailServiceName: 'ecs-${namePrefix}-${take(token, 6)}'
    systemTopicName: 'evgt-acs-${namePrefix}-${take(token, 6)}'
    dataLocation: communicationDataLocation
    tags: allTags
    principalId: identity.outputs.principalId
    storageAccountName: storage.outputs.name
    deadLetterContainerName: storage.outputs.deadLetterContainerName
  }
}

module sql 'modules/sql.bicep' = {
  name: 'sql'
  scope: rg
  params: {
    serverName: 'sql-${namePrefix}-${take(token, 6)}'
    databaseName: 'platform'
    location: location
    tags: allTags
    adminGroupName: sqlAdminGroupName
    adminGroupObjectId: sqlAdminGroupObjectId
    sku: sqlDatabaseSku
    maxSizeGiB: sqlMaxSizeGiB
    workspaceId: monitoring.outputs.workspaceId
  }
}

module registry 'modules/container-registry.bicep' = {
  name: 'container-registry'
  scope: rg
  params: {
    name: take('cr${replace(toLower(environmentName), '-', '')}${token}', 50)
    location: location
    tags: allTags
    principalId: identity.outputs.principalId
  }
}

module functionApp 'modules/function-app.bicep' = {
  name: 'function-app'
  scope: rg
  params: {
    environmentName: 'cae-${namePrefix}'
    appName: 'ca-${namePrefix}-api'
    location: location
    tags: allTags
    workspaceId: monitoring.outputs.workspaceId
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    registryLoginServer: registry.outputs.loginServer
    imageName: apiImageName
    cpu: containerCpu
    memory: containerMemory
    minReplicas: minReplicas
    maxReplicas: maxReplicas
    terminationGracePeriodSeconds: shutdownGraceSeconds
    keyVaultUri: keyVault.outputs.uri
    expoAccessTokenConfigured: expoAccessTokenConfigured || !empty(expoAccessToken)
    storageAccountName: storage.outputs.name
    settings: {
      APP_ENV: appEnv
      SERVICE_NAME: 'api'
      LOG_LEVEL: logLevel
      IDP_ISSUER: idpIssuer
      IDP_AUDIENCE: idpAudience
      IDP_JWKS_URI: idpJwksUri
      IDP_ALGORITHMS: idpAlgorithms
      SQL_CONNECTION_STRING: 'Server=tcp:${sql.outputs.serverFqdn},1433;Database=${sql.outputs.databaseName};Authentication=Active Directory Managed Identity;User Id=${identity.outputs.clientId};Encrypt=true;TrustServerCertificate=false;Max Pool Size=${sqlMaxPoolSize}'
      NEW_USER_STATUS: newUserStatus
      BOOTSTRAP_ADMIN_SUBJECTS: bootstrapAdminSubjects
      TRUST_PROXY_HOPS: string(trustProxyHops)
      SMS_MONTHLY_CAP_USD: string(smsMonthlyCapUsd)
      // Under the module's own condition, so the module is deployed wherever its outputs are read (!).
      ACS_ENDPOINT: deployCommunicationServices ? communication!.outputs.endpoint : ''
      ACS_SMS_FROM: acsSmsFrom
      ACS_EMAIL_SENDER: deployCommunicationServices ? communication!.outputs.emailSender : ''
      // libuv's pool as large as the Argon2 limit: every pool thread that ran Argon2 keeps its 19 MiB.
      UV_THREADPOOL_SIZE: '2'
      // The same grace as the container app's: the app's shutdown schedule is derived from it.
      SHUTDOWN_GRACE_SECONDS: string(shutdownGraceSeconds)
      CONSENT_TERMS_VERSION: consentTermsVersion
      // The daily cost check reads this resource group's cost with the app's identity (cost-reader.bicep).
      COST_SCOPE: deployCostAlerts ? rg.id : ''
      COST_EXPECTED_MONTHLY_USD: string(expectedMonthlyCostUsd)
      // The ingress request count reads this app's own Requests metric with the app's identity
      // (metrics-reader.bicep) for the API error-rate alert; the id is the one this module gives the app.
      INGRESS_METRICS_RESOURCE_ID: '${rg.id}/providers/Microsoft.App/containerApps/ca-${namePrefix}-api'
      INGRESS_METRICS_ENDPOINT: 'https://${location}.metrics.monitor.azure.com'
    }
  }
}

module actionGroups 'modules/action-groups.bicep' = {
  name: 'action-groups'
  scope: rg
  params: {
    namePrefix: namePrefix
    tags: allTags
    ownerName: ownerName
    ownerPhoneCountryCode: ownerPhoneCountryCode
    ownerPhoneNumber: ownerPhoneNumber
    ownerPushEmail: ownerPushEmail
    onCallWebhookUrl: onCallWebhookUrl
    digestEmailAddresses: split(replace(digestEmailAddresses, ' ', ''), ',')
  }
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    namePrefix: namePrefix
    location: location
    tags: allTags
    alerts: alertCatalogue
    workspaceId: monitoring.outputs.workspaceId
    targets: {
      containerApp: functionApp.outputs.appId
      sqlDatabase: sql.outputs.databaseId
      appStorage: storage.outputs.id
      appBlobService: storage.outputs.blobServiceId
      coldStorage: monitoring.outputs.coldStorageId
    }
    pagingActionGroupId: actionGroups.outputs.pagingId
    digestActionGroupId: actionGroups.outputs.digestId
    coldStorageCapacityGiB: coldStorageCapacityGiB
    runbookBaseUrl: runbookBaseUrl
    deployBudget: deployCostAlerts
    expectedMonthlyCostUsd: expectedMonthlyCostUsd
    budgetStartDate: budgetStartDate
    digestEmailAddresses: split(replace(digestEmailAddresses, ' ', ''), ',')
  }
}

module costReader 'modules/cost-reader.bicep' = if (deployCostAlerts) {
  name: 'cost-reader'
  scope: rg
  params: {
    principalId: identity.outputs.principalId
  }
}

module metricsReader 'modules/metrics-reader.bicep' = {
  name: 'metrics-reader'
  scope: rg
  params: {
    appName: functionApp.outputs.appName
    principalId: identity.outputs.principalId
  }
}

module workbook 'modules/workbook.bicep' = {
  name: 'workbook'
  scope: rg
  params: {
    location: location
    tags: allTags
    displayName: 'Community platform operations (${environmentName})'
    workspaceId: monitoring.outputs.workspaceId
  }
}

// Read by azd (deploy) and by the operator (infra/README.md).
output AZURE_LOCATION string = location
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_CONTAINER_REGISTRY_ENDPOINT string = registry.outputs.loginServer
output AZURE_CONTAINER_REGISTRY_NAME string = registry.outputs.name
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output AZURE_APP_IDENTITY_NAME string = identity.outputs.name
output AZURE_SQL_SERVER_FQDN string = sql.outputs.serverFqdn
output AZURE_SQL_DATABASE_NAME string = sql.outputs.databaseName
output AZURE_LOG_ANALYTICS_WORKSPACE_ID string = monitoring.outputs.workspaceId
output SERVICE_API_NAME string = functionApp.outputs.appName
output SERVICE_API_URL string = functionApp.outputs.url
// The app's ACS_ENDPOINT, for the operator; empty when Communication Services is not deployed.
output AZURE_COMMUNICATION_ENDPOINT string = deployCommunicationServices ? communication!.outputs.endpoint : ''
// Read by infra/hooks/postprovision.sh (.ps1), which subscribes the app's communication-events
// function to the system topic (no topic: nothing to subscribe).
output AZURE_COMMUNICATION_EVENTS_TOPIC string = deployCommunicationServices ? communication!.outputs.systemTopicName : ''
output AZURE_COMMUNICATION_DEADLETTER_STORAGE_ID string = storage.outputs.id
output AZURE_COMMUNICATION_DEADLETTER_CONTAINER string = storage.outputs.deadLetterContainerName
