// Log Analytics (30 days), workspace-based Application Insights, the workspace function the alert
// queries share, and cold storage: a data export rule that copies the tables to a storage account
// whose lifecycle policy keeps them for coldStorageRetentionDays.
param location string
param tags object
param workspaceName string
param appInsightsName string
param coldStorageName string
param retentionInDays int
param coldStorageRetentionDays int

@description('Tables copied to cold storage as they arrive (spec: longer retention by export).')
param exportedTables array = [
  'ContainerAppConsoleLogs'
  'ContainerAppSystemLogs'
  'AppRequests'
  'AppEvents'
  'AppExceptions'
  'AppDependencies'
  'AppMetrics'
  'AppTraces'
]

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: workspaceName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

// `AppLogLines`: the app's JSON log lines parsed out of the console logs. Alert rules, the workbook
// and the runbooks read it, so the parsing lives in one place.
resource appLogLines 'Microsoft.OperationalInsights/workspaces/savedSearches@2020-08-01' = {
  parent: workspace
  name: 'AppLogLines'
  properties: {
    category: 'Community platform'
    displayName: 'App log lines'
    functionAlias: 'AppLogLines'
    query: loadTextContent('../alerts/functions/AppLogLines.kql')
    version: 2
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    RetentionInDays: retentionInDays
    publicNetworkAccessForIngestion: 'Enabled'
    publicNetworkAccessForQuery: 'Enabled'
  }
}

resource coldStorage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: coldStorageName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Cool'
    minimumTlsVersion: 'TLS1_2'
    allowBlobPublicAccess: false
    supportsHttpsTrafficOnly: true
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

// Exported data lands in append blobs under am-<table>/ containers: the lifecycle policy can only
// delete those; block blobs (copies an operator makes) also move to the archive tier.
resource coldStorageLifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: coldStorage
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          name: 'delete-exported-logs'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'appendBlob'
              ]
              prefixMatch: [
                'am-'
              ]
            }
            actions: {
              baseBlob: {
                delete: {
                  daysAfterModificationGreaterThan: coldStorageRetentionDays
                }
              }
            }
          }
        }
        {
          name: 'archive-then-delete-copies'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
            }
            actions: {
              baseBlob: {
                tierToArchive: {
                  daysAfterModificationGreaterThan: 30
                }
                delete: {
                  daysAfterModificationGreaterThan: coldStorageRetentionDays
                }
              }
            }
          }
        }
      ]
    }
  }
}

resource coldStorageExport 'Microsoft.OperationalInsights/workspaces/dataExports@2020-08-01' = {
  parent: workspace
  name: 'cold-storage'
  properties: {
    destination: {
      resourceId: coldStorage.id
    }
    tableNames: exportedTables
    enable: true
  }
}

output workspaceId string = workspace.id
output workspaceName string = workspace.name
output appInsightsName string = appInsights.name
output coldStorageId string = coldStorage.id
