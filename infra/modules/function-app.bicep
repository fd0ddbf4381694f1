// The Container Apps environment and the function app on it (Microsoft.App/containerApps with
// kind functionapp): the image built from the repository's Dockerfile on the official Azure
// Functions Node 22 base, probes on /api/health (liveness) and /api/ready (readiness), at least
// minReplicas replicas, plain settings as environment variables and secrets as Key Vault references.
param environmentName string
param appName string
param location string
param tags object
param workspaceId string
param identityId string
param identityClientId string
param registryLoginServer string
@description('The app image; empty on the first provision (azd deploy then builds and sets it).')
param imageName string
param cpu string
param memory string
param minReplicas int
param maxReplicas int
@description('Seconds between the SIGTERM a replica gets and its SIGKILL; the app\'s SHUTDOWN_GRACE_SECONDS has the same value.')
param terminationGracePeriodSeconds int
param keyVaultUri string
param storageAccountName string
param expoAccessTokenConfigured bool
@description('Plain (non-secret) app settings: name → value.')
param settings object

// The first provision runs before azd has built the image: a public Functions sample holds the
// place, without the app's probes (its routes do not exist).
var placeholderImage = 'mcr.microsoft.com/azure-functions/dotnet8-quickstart-demo:1.0'
var usesAppImage = !empty(imageName)

// Key Vault references: container-app secret name, Key Vault secret name, app setting.
// Communication Services has none: the app reaches it by identity (ACS_ENDPOINT, a plain setting).
var secretReferences = concat(
  [
    {
      name: 'child-secret-pepper'
      setting: 'CHILD_SECRET_PEPPER'
    }
    {
      name: 'appinsights-connection-string'
      setting: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
    }
  ],
  expoAccessTokenConfigured
    ? [
        {
          name: 'expo-access-token'
          setting: 'EXPO_ACCESS_TOKEN'
        }
      ]
    : []
)

// Host settings: the Functions runtime, identity-based host storage, the identity the SDKs use.
// Host keys (among them the Event Grid system key `eventgrid_extension` that the Communication
// Services event subscription calls the app with) live in the host storage account (`blob`, in
// container azure-webjobs-secrets), reached by identity: every replica and every revision sees the
// same keys, and the host creates a missing key itself. Not `files`: a container's file system is
// per replica and lost on restart, so each replica would invent its own keys (Microsoft's Functions
// on Container Apps docs warn against it). Not `containerapp`: that store never creates keys, each
// one would have to be generated and provisioned as a secret by hand.
// The host id is pinned because host keys and timer/singleton leases are kept per host id; outside
// App Service the host would otherwise derive it from the replica's machine name. It must be at
// most 32 lowercase letters, digits and dashes: ca-cp-<env>-api is (environmentName has at most 20).
// languageWorkers__node__arguments: the flags the host starts the Node worker with, the app's own
// (shared/lifecycle/node-runtime-flags.ts: AsyncLocalStorage without a hook on every promise; a test
// holds this value to that list).
var hostSettings = {
  FUNCTIONS_WORKER_RUNTIME: 'node'
  languageWorkers__node__arguments: '--experimental-async-context-frame'
  AzureWebJobsStorage__accountName: storageAccountName
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  AzureWebJobsSecretStorageType: 'blob'
  AzureFunctionsWebHost__hostid: take(toLower(appName), 32)
  AZURE_CLIENT_ID: identityClientId
}

var plainEnv = map(items(union(hostSettings, settings)), setting => {
  name: setting.key
  value: setting.value
})
var secretEnv = map(secretReferences, secret => {
  name: secret.setting
  secretRef: secret.name
})

var probes = [
  {
    type: 'Startup'
    httpGet: {
      path: '/api/health'
      port: 80
    }
    periodSeconds: 5
    failureThreshold: 24
    timeoutSeconds: 3
  }
  {
    type: 'Liveness'
    httpGet: {
      path: '/api/health'
      port: 80
    }
    periodSeconds: 15
    failureThreshold: 3
    timeoutSeconds: 5
  }
  {
    type: 'Readiness'
    httpGet: {
      path: '/api/ready'
      port: 80
    }
    periodSeconds: 15
    failureThreshold: 3
    timeoutSeconds: 10
  }
]

resource appEnvironment 'Microsoft.App/managedEnvironments@2024-03-01' = {
  name: environmentName
  location: location
  tags: tags
  properties: {
    // Console and system logs go through the diagnostic setting below into the resource-specific
    // tables ContainerAppConsoleLogs and ContainerAppSystemLogs (not the legacy *_CL tables).
    appLogsConfiguration: {
      destination: 'azure-monitor'
    }
    workloadProfiles: [
      {
        name: 'Consumption'
        workloadProfileType: 'Consumption'
      }
    ]
    zoneRedundant: false
  }
}

resource environmentDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: appEnvironment
  properties: {
    workspaceId: workspaceId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      {
        category: 'ContainerAppConsoleLogs'
        enabled: true
      }
      {
        category: 'ContainerAppSystemLogs'
        enabled: true
      }
    ]
  }
}

resource app 'Microsoft.App/containerApps@2025-02-02-preview' = {
  name: appName
  location: location
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    managedEnvironmentId: appEnvironment.id
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      ingress: {
        external: true
        targetPort: 80
        transport: 'auto'
        allowInsecure: false
      }
      registries: [
        {
          server: registryLoginServer
          identity: identityId
        }
      ]
      secrets: [for secret in secretReferences: {
        name: secret.name
        keyVaultUrl: '${keyVaultUri}secrets/${secret.name}'
        identity: identityId
      }]
    }
    template: {
      // Set, not left to the platform's default: the app derives its shutdown deadline from this value.
      terminationGracePeriodSeconds: terminationGracePeriodSeconds
      containers: [
        {
          name: 'api'
          image: usesAppImage ? imageName : placeholderImage
          resources: {
            cpu: json(cpu)
            memory: memory
          }
          env: concat(plainEnv, secretEnv)
          probes: usesAppImage ? probes : []
        }
      ]
      scale: {
        minReplicas: minReplicas
        maxReplicas: maxReplicas
      }
    }
  }
  dependsOn: [
    environmentDiagnostics
  ]
}

output appId string = app.id
output appName string = app.name
output url string = 'https://${app.properties.configuration.ingress.fqdn}'
