// Azure Communication Services for SMS and e-mail, with an Azure-managed e-mail domain. Its
// connection string goes straight into Key Vault (acs-connection-string); it is never an output.
// An SMS sender number is bought in the portal and given as ACS_SMS_FROM (main.bicep acsSmsFrom).
param name string
param emailServiceName string
param dataLocation string
param tags object
param keyVaultName string

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

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource connectionString 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'acs-connection-string'
  properties: {
    value: communication.listKeys().primaryConnectionString
    contentType: 'ACS_CONNECTION_STRING'
  }
}

output emailSender string = 'DoNotReply@${emailDomain.properties.mailFromSenderDomain}'
