// The two routes of the spec: critical alerts page the platform owner (SMS, voice, push in the
// Azure mobile app, and the on-call channel's webhook); warnings go to an e-mail digest read the
// next business day. Who is paged comes from parameters, set per azd environment.
param namePrefix string
param tags object
param ownerName string
param ownerPhoneCountryCode string
param ownerPhoneNumber string
param ownerPushEmail string
@secure()
param onCallWebhookUrl string
param digestEmailAddresses array

resource paging 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: '${namePrefix}-paging'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'page-owner'
    enabled: true
    smsReceivers: [
      {
        name: '${ownerName} (SMS)'
        countryCode: ownerPhoneCountryCode
        phoneNumber: ownerPhoneNumber
      }
    ]
    voiceReceivers: [
      {
        name: '${ownerName} (voice)'
        countryCode: ownerPhoneCountryCode
        phoneNumber: ownerPhoneNumber
      }
    ]
    azureAppPushReceivers: empty(ownerPushEmail)
      ? []
      : [
          {
            name: '${ownerName} (push)'
            emailAddress: ownerPushEmail
          }
        ]
    webhookReceivers: empty(onCallWebhookUrl)
      ? []
      : [
          {
            name: 'on-call channel'
            serviceUri: onCallWebhookUrl
            useCommonAlertSchema: true
          }
        ]
  }
}

resource digest 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: '${namePrefix}-digest'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'digest'
    enabled: true
    emailReceivers: [for (address, index) in digestEmailAddresses: {
      name: 'digest ${index + 1}'
      emailAddress: address
      useCommonAlertSchema: true
    }]
  }
}

output pagingId string = paging.id
output digestId string = digest.id
