// The app's user-assigned managed identity: it reads Key Vault, pulls the image, reaches the
// storage queues and signs in to Azure SQL. User-assigned, so the grants exist before the app does.
param name string
param location string
param tags object

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output principalId string = identity.properties.principalId
output clientId string = identity.properties.clientId
