// Cost Management's anomaly alert (a scheduled action of kind InsightAlert) for the subscription:
// every day Azure compares the day's cost with the run rate before it and e-mails the digest
// recipients when it finds an anomaly. It only e-mails (no action group), hence the addresses.
targetScope = 'subscription'

param namePrefix string
@description('The alert catalogue: the entries of infra/alerts/*.json.')
param alerts array
param digestEmailAddresses array
@description('First day of the schedule (yyyy-MM-dd).')
param startDate string

var anomalyAlerts = filter(alerts, alert => alert.kind == 'costAnomaly')

resource anomalyAlert 'Microsoft.CostManagement/scheduledActions@2023-11-01' = [for alert in anomalyAlerts: {
  name: '${namePrefix}-${alert.name}'
  kind: 'InsightAlert'
  properties: {
    displayName: alert.displayName
    status: 'Enabled'
    viewId: '${subscription().id}/providers/Microsoft.CostManagement/views/ms:DailyAnomalyByResourceGroup'
    notificationEmail: first(digestEmailAddresses)
    notification: {
      to: digestEmailAddresses
      subject: '[warning] ${alert.displayName} (${namePrefix})'
      message: alert.description
    }
    schedule: {
      frequency: 'Daily'
      startDate: '${startDate}T00:00:00Z'
      endDate: dateTimeAdd('${startDate}T00:00:00Z', 'P5Y')
    }
  }
}]
