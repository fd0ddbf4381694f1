// Azure Communication Services for SMS and e-mail, with an Azure-managed e-mail domain. The app
// reaches it with its user-assigned identity and Microsoft Entra ID tokens (ACS_ENDPOINT +
// AZURE_CLIENT_ID): no access key or connection string is read here, stored in Key Vault or handed
// to the app. An SMS sender number is bought in the portal and given as ACS_SMS_FROM (main.bicep
// acsSmsFrom).
//
// Delivery reports come back through an Event Grid system topic on the resource. Its subscription
// to the app's `communication-events` function is not declared here: its webhook URL carries the
// Functions host's Event Grid system key, which only the running app has and which Bicep cannot
// read at deployment time, so infra/hooks/postprovision.sh (.ps1) creates it (infra/README.md,
// "Communication Services").
param name string
param emailServiceName string
param systemTopicName string
param dataLocation string
param tags object
@description('Principal id of the app\'s managed identity, which sends SMS and e-mail.')
param principalId string
@description('The app\'s storage account, which holds the dead-letter container.')
param storageAccountName string
@description('Blob container (in storageAccountName) where Event Grid dead-letters undeliverable events.')
param deadLetterContainerName string

// Communication and Email Service Owner (built-in role 09976791-48a7-449e-bb21-39d1a415f350).
// Source: learn.microsoft.com/azure/communication-services/quickstarts/email/send-email-smtp/
// smtp-authentication ("Set up SMTP authentication for sending emails", section "Assign a role to
// the Microsoft Entra application"): a Microsoft Entra principal that sends through a Communication
// Services resource gets this built-in role, or a custom role with CommunicationServices/Read,
// CommunicationServices/Write and EmailServices/write. The SMS SDK's Entra ID quickstart
// (quickstarts/identity/service-principal) grants Contributor, which is broader. So this is the
// narrowest built-in role that sends SMS and e-mail with an Entra ID token; it covers all
// operations of Communication Services, hence the scope: this one resource, nothing above it.
var communicationAndEmailServiceOwner = '09976791-48a7-449e-bb21-39d1a415f350'

// Storage Blob Data Contributor (built-in): the system topic's identity writes dead-lettered
// events; the storage account accepts no shared keys, so Event Grid must use an identity.
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'

resource emailService 'Microsoft.Communication/emailServices@2023-04-01' = {
  name: emailServiceName
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
  }
}

resource emailDomain 'Microsoft.Communication/emailServices/domains@2023-04-01' = {
  parent: emailService
  name: 'AzureManagedDomain'
  location: 'global'
  tags: tags
  properties: {
    domainManagement: 'AzureManaged'
    userEngagementTracking: 'Disabled'
  }
}

resource communication 'Microsoft.Communication/communicationServices@2023-04-01' = {
  name: name
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
    linkedDomains: [
      emailDomain.id
    ]
  }
}

// The app's identity sends SMS and e-mail with Entra ID tokens instead of the resource's keys.
resource appSends 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(communication.id, principalId, communicationAndEmailServiceOwner)
  scope: communication
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', communicationAndEmailServiceOwner)
  }
}

// The events of the Communication Services resource (SMS and e-mail delivery reports, inbound SMS).
// A system topic of a global resource is itself global. Its system-assigned identity is the one
// Event Grid dead-letters with.
resource systemTopic 'Microsoft.EventGrid/systemTopics@2022-06-15' = {
  name: systemTopicName
  location: 'global'
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    source: communication.id
    topicType: 'Microsoft.Communication.CommunicationServices'
  }
}

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' existing = {
  parent: storageAccount
  name: 'default'
}

resource deadLetterContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' existing = {
  parent: blobService
  name: deadLetterContainerName
}

// Scoped to the dead-letter container only: the topic cannot touch the host's or the queue's data.
resource deadLetterWriter 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(deadLetterContainer.id, systemTopic.id, storageBlobDataContributor)
  scope: deadLetterContainer
  properties: {
    principalId: systemTopic.identity.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
  }
}

// ACS_ENDPOINT of the app: the resource's data-plane endpoint (not a secret).
output endpoint string = 'https://${communication.properties.hostName}'
output emailSender string = 'DoNotReply@${emailDomain.properties.mailFromSenderDomain}'
output systemTopicName string = systemTopic.name
