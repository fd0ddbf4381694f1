// Key Vault (RBAC) holding the app's secrets: the child-secret pepper, the telemetry connection
// string and the optional Expo access token. The app reads them as Key Vault references with its
// identity. Communication Services has no secret here: the app reaches it by identity.
param name string
param location string
param tags object
@description('Principal id of the app\'s managed identity.')
param principalId string
param appInsightsName string
param workspaceId string

@secure()
@description('Written only when given (first provision); otherwise the secret already in the vault stays.')
param childSecretPepper string = ''

@secure()
@description('Written only when given.')
param expoAccessToken string = ''

var keyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6'

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    publicNetworkAccess: 'Enabled'
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource pepper 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(childSecretPepper)) {
  parent: vault
  name: 'child-secret-pepper'
  properties: {
    value: childSecretPepper
    contentType: 'CHILD_SECRET_PEPPER'
  }
}

resource telemetryConnection 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'appinsights-connection-string'
  properties: {
    value: appInsights.properties.ConnectionString
    contentType: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
  }
}

resource expoToken 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(expoAccessToken)) {
  parent: vault
  name: 'expo-access-token'
  properties: {
    value: expoAccessToken
    contentType: 'EXPO_ACCESS_TOKEN'
  }
}

resource secretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, principalId, keyVaultSecretsUser)
  scope: vault
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUser)
  }
}

// Who read which secret, kept with the other logs.
resource diagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspaceId
    logs: [
      {
        categoryGroup: 'audit'
        enabled: true
      }
    ]
  }
}

output name string = vault.name
output uri string = vault.properties.vaultUri
