// Every alert of infra/alerts/*.json (loaded by main.bicep with loadJsonContent, passed in as
// `alerts`): log search alerts on the workspace (the daily cost checks among them: they read the
// app's cost.daily event), metric alerts on the resources, and the monthly budget.
// Each alert's action group follows its `actionGroup`: critical → paging, warning → digest.
param namePrefix string
param location string
param tags object
@description('The alert catalogue: the entries of infra/alerts/*.json.')
param alerts array
param workspaceId string
@description('Metric alert targets by the `target` names of the catalogue.')
param targets object
param pagingActionGroupId string
param digestActionGroupId string
param coldStorageCapacityGiB int
param runbookBaseUrl string
param deployBudget bool
param expectedMonthlyCostUsd int
param budgetStartDate string
param digestEmailAddresses array

var actionGroupIds = {
  paging: pagingActionGroupId
  digest: digestActionGroupId
}

// Thresholds given as a percentage of a budgeted capacity (`thresholdPercentOf`), in the metric's unit.
var thresholdBases = {
  coldStorageCapacityGiB: coldStorageCapacityGiB * 1073741824
}

// The body of the workspace function AppLogLines, inlined into every rule that names it: a
// one-minute rule may not call a function that reads another table, and a rule that carries its
// own parsing does not depend on the saved function existing when it is validated.
var appLogLines = loadTextContent('../alerts/functions/AppLogLines.kql')

var logAlerts = filter(alerts, alert => alert.kind == 'log')
var metricAlerts = filter(alerts, alert => alert.kind == 'metric')
var budgets = filter(alerts, alert => alert.kind == 'budget')

resource logAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [for alert in logAlerts: {
  name: '${namePrefix}-${alert.name}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: alert.displayName
    description: alert.description
    severity: alert.severity
    enabled: true
    scopes: [
      workspaceId
    ]
    evaluationFrequency: alert.frequency
    windowSize: alert.window
    criteria: {
      allOf: [
        {
          query: replace(join(alert.query, '\n'), 'AppLogLines', '(\n${appLogLines})')
          timeAggregation: alert.timeAggregation
          metricMeasureColumn: alert.?metricMeasureColumn
          operator: alert.operator
          threshold: alert.threshold
          failingPeriods: alert.?failingPeriods ?? {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    // Azure validates each query against the workspace's schema when the rule is saved. Every table
    // the rules read is one Azure defines in every workspace (empty tables validate), and no rule
    // depends on a saved function, so validation stays on (infra/README.md, "Alerts").
    skipQueryValidation: false
    actions: {
      actionGroups: [
        actionGroupIds[alert.actionGroup]
      ]
      customProperties: {
        tier: alert.tier
        runbook: contains(alert, 'runbook') ? '${runbookBaseUrl}${alert.runbook}' : ''
      }
    }
  }
}]

resource metricAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = [for alert in metricAlerts: {
  name: '${namePrefix}-${alert.name}'
  location: 'global'
  tags: tags
  properties: {
    description: alert.description
    severity: alert.severity
    enabled: true
    scopes: [
      targets[alert.target]
    ]
    evaluationFrequency: alert.frequency
    windowSize: alert.window
    autoMitigate: true
    criteria: alert.threshold == 'dynamic'
      ? {
          'odata.type': 'Microsoft.Azure.Monitor.MultipleResourceMultipleMetricCriteria'
          allOf: [
            {
              criterionType: 'DynamicThresholdCriterion'
              name: alert.metricName
              metricNamespace: alert.metricNamespace
              metricName: alert.metricName
              timeAggregation: alert.aggregation
              operator: alert.operator
              alertSensitivity: alert.sensitivity
              failingPeriods: alert.failingPeriods
            }
          ]
        }
      : {
          'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
          allOf: [
            {
              criterionType: 'StaticThresholdCriterion'
              name: alert.metricName
              metricNamespace: alert.metricNamespace
              metricName: alert.metricName
              timeAggregation: alert.aggregation
              operator: alert.operator
              threshold: contains(alert, 'thresholdPercentOf')
                ? thresholdBases[alert.thresholdPercentOf] * alert.threshold / 100
                : alert.threshold
            }
          ]
        }
    actions: [
      {
        actionGroupId: actionGroupIds[alert.actionGroup]
        webHookProperties: {
          tier: alert.tier
          runbook: contains(alert, 'runbook') ? '${runbookBaseUrl}${alert.runbook}' : ''
        }
      }
    ]
  }
}]

// The month's actual cost and Azure's forecast (recomputed daily from the daily run rate) against
// the expected baseline.
resource budget 'Microsoft.Consumption/budgets@2023-11-01' = [for alert in budgets: if (deployBudget) {
  name: '${namePrefix}-${alert.name}'
  properties: {
    category: 'Cost'
    amount: expectedMonthlyCostUsd
    timeGrain: 'Monthly'
    timePeriod: {
      startDate: budgetStartDate
    }
    notifications: toObject(alert.thresholdTypes, thresholdType => '${toLower(thresholdType)}-over-${alert.threshold}-percent', thresholdType => {
      enabled: true
      operator: alert.operator
      threshold: alert.threshold
      thresholdType: thresholdType
      contactEmails: digestEmailAddresses
      contactGroups: [
        actionGroupIds[alert.actionGroup]
      ]
    })
  }
}]
