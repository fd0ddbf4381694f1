// The operations dashboard: an Azure Workbook over the workspace (infra/workbooks/operations.workbook.json).
param location string
param tags object
param displayName string
param workspaceId string

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'community-platform-operations')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: displayName
    category: 'workbook'
    sourceId: workspaceId
    serializedData: loadTextContent('../workbooks/operations.workbook.json')
  }
}

output id string = workbook.id
