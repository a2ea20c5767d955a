// Alerts on what delivery could not deliver: an event poisoned (on the poison queue) or dead-lettered.
// Both are log search alerts on the app's traces in Application Insights. Storage has no per-queue
// message-count metric (QueueMessageCount counts the whole account, hourly), so the poison queue is
// watched through what puts messages on it, each of which logs one line:
//   - the service, per event: `twin event poisoned: …` (or `twin events message poisoned: …` for a
//     message it cannot read), src/delivery/twin-event-delivery.ts;
//   - the Functions host, per message that failed maxDequeueCount times (host.json):
//     `Message has reached MaxDequeueCount of 5. Moving message to queue '<queue>-poison'.`
// and the service logs `twin event dead-lettered: …` per event written to a dead-letter container.
// host.json keeps traces out of sampling, so no line is dropped before the query sees it.
//
// The alerts fire on arrivals within each 5-minute window, not on a non-empty queue: a message left
// on the poison queue alerts once. infra/README.md says how to inspect and drain the queue.
// test/unit/infra-alerts.test.ts holds the queries to the log lines of src/.

param location string
param tags object = {}

@description('Name of the Application Insights component the app logs to.')
param applicationInsightsName string

@description('Names of the alert rules start with this.')
param namePrefix string

@description('The poison queue: <TWIN_EVENTS_QUEUE>-poison.')
param poisonQueueName string

@description('Where alert emails go; empty: the alerts still fire (Azure portal, Monitor > Alerts) but notify no one.')
param alertEmailAddress string = ''

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (!empty(alertEmailAddress)) {
  name: 'ag-${namePrefix}'
  location: 'Global'
  tags: tags
  properties: {
    // At most 12 characters; the sender name of SMS and email notifications.
    groupShortName: 'twin-alerts'
    enabled: true
    emailReceivers: [
      {
        name: 'operator'
        emailAddress: alertEmailAddress
        useCommonAlertSchema: true
      }
    ]
  }
}

var actionGroupIds = empty(alertEmailAddress) ? [] : [actionGroup.id]

// Prefixes, not words: `has "poisoned"` would also match the summary line every invocation logs
// (`twin events: delivered=… poisoned=0 …`).
var poisonedQuery = join([
  'traces'
  '| where message startswith "twin event poisoned:"'
  '    or message startswith "twin events message poisoned:"'
  '    or message contains "Moving message to queue \'${poisonQueueName}\'"'
], '\n')

var deadLetteredQuery = join([
  'traces'
  '| where message startswith "twin event dead-lettered:"'
], '\n')

var rules = [
  {
    name: 'poisoned'
    displayName: 'Twin events poisoned (${poisonQueueName} not empty)'
    description: 'Events or messages went to the poison queue ${poisonQueueName}: they were not delivered and wait for an operator (infra/README.md, "The poison queue and dead-letter blobs").'
    // 1: Error. Nothing retries a poisoned event.
    severity: 1
    query: poisonedQuery
  }
  {
    name: 'dead-lettered'
    displayName: 'Twin events dead-lettered'
    description: 'Events exhausted their delivery attempts or time to live and were written to their endpoint\'s dead-letter container.'
    // 2: Warning. The events are kept, in the endpoint owner's storage.
    severity: 2
    query: deadLetteredQuery
  }
]

resource alerts 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [
  for rule in rules: {
    name: 'alert-${namePrefix}-${rule.name}'
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: rule.displayName
      description: rule.description
      severity: rule.severity
      enabled: true
      scopes: [
        applicationInsights.id
      ]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT5M'
      criteria: {
        allOf: [
          {
            query: rule.query
            timeAggregation: 'Count'
            operator: 'GreaterThan'
            threshold: 0
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      // Resolved once a window passes without a new line.
      autoMitigate: true
      actions: {
        actionGroups: actionGroupIds
      }
    }
  }
]
