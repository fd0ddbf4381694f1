// Cost Management Reader on the resource group for the app's identity: the daily cost check
// (functions/cost-check-timer.ts) reads the group's actual cost per day with it (COST_SCOPE).
param principalId string

var costManagementReader = '72fafb9e-0641-4937-9268-a91bfd8191a3'

resource costReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, principalId, costManagementReader)
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', costManagementReader)
  }
}
