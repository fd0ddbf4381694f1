// The app's storage account: the notification-fanout queue, the Functions host's own blobs (timer
// and singleton leases, the host keys) and the dead-letter container of the Communication Services
// event subscription. Shared keys are off: the app and the host use the managed identity
// (AzureWebJobsStorage__accountName / __credential / __clientId), Event Grid its topic's identity.
param name string
param location string
param tags object
@description('Principal id of the app\'s managed identity.')
param principalId string
param workspaceId string
@description('Blob container where Event Grid dead-letters Communication Services events it could not deliver to the app.')
param deadLetterContainerName string = 'communication-events-deadletter'

var roles = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
}

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    allowSharedKeyAccess: false
    allowBlobPublicAccess: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    defaultToOAuthAuthentication: true
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource fanoutQueue 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = {
  parent: queueService
  name: 'notification-fanout'
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: account
  name: 'default'
}

// Delivery reports Event Grid gave up on (retry policy exhausted or event too old) land here as
// blobs, for inspection and replay by hand; the app never reads this container. The writer is the
// Event Grid system topic's identity (modules/communication.bicep).
resource deadLetterContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deadLetterContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource roleAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in items(roles): {
  name: guid(account.id, principalId, role.value)
  scope: account
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role.value)
  }
}]

// Transactions and capacity stay platform metrics (the alerts read them there); the queue's
// operations go to the workspace for investigations.
resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: queueService
  properties: {
    workspaceId: workspaceId
    logs: [
      {
        categoryGroup: 'allLogs'
        enabled: true
      }
    ]
  }
}

output id string = account.id
// The blob service, whose own Transactions metric the blob-transactions-spike alert reads (queues apart).
output blobServiceId string = blobService.id
output name string = account.name
output deadLetterContainerName string = deadLetterContainer.name
