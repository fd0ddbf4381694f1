// The registry azd pushes the app's image to; the app pulls with its identity (no admin user).
param name string
param location string
param tags object
param principalId string

var acrPull = '7f951dda-4ed3-4680-a7ca-43fe172d538d'

// 2025-04-01: 2023-07-01's schema has no anonymousPullEnabled, so anonymous pull could not be stated there.
resource registry 'Microsoft.ContainerRegistry/registries@2025-04-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: 'Basic'
  }
  properties: {
    adminUserEnabled: false
    anonymousPullEnabled: false
  }
}

resource pull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, principalId, acrPull)
  scope: registry
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPull)
  }
}

output name string = registry.name
output loginServer string = registry.properties.loginServer
