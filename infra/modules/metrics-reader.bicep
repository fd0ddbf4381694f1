// Monitoring Reader on the app's own container app for the app's identity: the ingress request
// count (functions/ingress-requests-timer.ts) reads the app's `Requests` metric with it
// (INGRESS_METRICS_RESOURCE_ID), for the API error-rate alert. Scoped to the one container app,
// not the resource group: that metric is all the count needs.
param appName string
param principalId string

var monitoringReader = '43d0d8ad-25c7-4714-9337-8ba259a9fe05'

resource app 'Microsoft.App/containerApps@2025-02-02-preview' existing = {
  name: appName
}

resource metricsReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(app.id, principalId, monitoringReader)
  scope: app
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringReader)
  }
}
