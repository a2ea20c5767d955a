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
//
// Three more, an operator's first questions (docs/operations.md, "Alerts: what each means and what to
// do"), on the same action group:
//   - 5xx rate: a log search alert on the HTTP requests the Functions host records, 5xx over all, as
//     a percentage (a platform metric such as Http5xx is a count, not a rate, and Flex Consumption
//     documents its own metric set, monitor-functions.md: the requests table is the same on every plan);
//   - /health: an Application Insights standard availability test from five locations, and the
//     metric alert Azure pairs with it (failed locations out of the locations tested);
//   - delivery lag: the app's own twin_events.delivery_latency histogram (customMetrics, min and
//     max per minute and endpoint: never sampled), as the queue has no age metric of its own.

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

@description('The URL the availability test requests: https://<the app\'s default host name>/health, which answers 200 without a credential (docs/api.md, "Health").')
param healthUrl string

// Five locations, the fewest Microsoft recommends, on three continents, so that one region's network
// trouble is not read as the app's (availability.md, "Test locations" and "Location population tags").
@description('Population names of the availability test\'s locations (availability.md, "Location population tags").')
@minLength(3)
param availabilityLocations array = [
  'us-va-ash-azr' // East US
  'us-ca-sjc-azr' // West US
  'emea-nl-ams-azr' // West Europe
  'emea-gb-db3-azr' // North Europe
  'apac-sg-sin-azr' // Southeast Asia
]

@description('The 5xx alert fires when more than this percentage of the HTTP requests of a 15-minute window answered 5xx.')
@minValue(1)
@maxValue(100)
param serverErrorPercentThreshold int = 5

@description('Fewer HTTP requests than this in a 15-minute window never fire the 5xx alert: one failure of two requests is no rate.')
@minValue(1)
param serverErrorMinRequests int = 20

@description('The delivery lag alert fires when every event delivered in a 15-minute window waited longer than this, in minutes, from ingest to its topic\'s acknowledgement.')
@minValue(1)
param deliveryLagThresholdMinutes int = 5

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

// The HTTP requests only (a queue-triggered invocation is a request without a url), 5xx over all.
// The host samples requests (host.json): itemCount is how many each kept row stands for.
var serverErrorRateQuery = join([
  'requests'
  '| where isnotempty(url)'
  '| summarize total = sum(itemCount), failed = sumif(itemCount, toint(resultCode) >= 500)'
  '| where total >= ${serverErrorMinRequests}'
  '| extend failedPercent = round(100.0 * failed / total, 1)'
], '\n')

// The fastest delivery of the window: when even it waited longer than the threshold, every message
// taken from the queue in the window was that old, which is a backlog on the queue (an endpoint whose
// broker is down raises the histogram's max with its retries, not the window's min, while other
// events flow). valueMin is the least latency of one export (a minute) of one endpoint.
var deliveryLagQuery = join([
  'customMetrics'
  '| where name == "twin_events.delivery_latency"'
  '| summarize fastestMs = min(valueMin)'
  '| extend lagMinutes = round(fastestMs / 60000.0, 1)'
], '\n')

var measureRules = [
  {
    name: 'http-5xx'
    displayName: 'HTTP 5xx rate over ${serverErrorPercentThreshold}%'
    description: 'More than ${serverErrorPercentThreshold}% of the API\'s HTTP requests of the last 15 minutes answered 5xx (at least ${serverErrorMinRequests} requests). docs/operations.md, "Alerts: what each means and what to do".'
    // 1: Error. Callers are failing now.
    severity: 1
    query: serverErrorRateQuery
    measure: 'failedPercent'
    threshold: serverErrorPercentThreshold
  }
  {
    name: 'delivery-lag'
    displayName: 'Twin events delivery lag over ${deliveryLagThresholdMinutes} min'
    description: 'Every event delivered in the last 15 minutes waited more than ${deliveryLagThresholdMinutes} minutes from ingest to its topic\'s acknowledgement: the twin-events queue is backing up. docs/operations.md, "Alerts: what each means and what to do".'
    // 2: Warning. The events are late, not lost.
    severity: 2
    query: deliveryLagQuery
    measure: 'lagMinutes'
    threshold: deliveryLagThresholdMinutes
  }
]

resource measureAlerts 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [
  for rule in measureRules: {
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
      windowSize: 'PT15M'
      criteria: {
        allOf: [
          {
            query: rule.query
            timeAggregation: 'Maximum'
            metricMeasureColumn: rule.measure
            operator: 'GreaterThan'
            threshold: rule.threshold
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      autoMitigate: true
      actions: {
        actionGroups: actionGroupIds
      }
    }
  }
]

// A standard test (the URL ping test retires on 30 September 2026, availability.md), linked to the
// component by the hidden-link tag Azure expects. Its results (availabilityResults) are written by
// Azure's availability service, not sent with the app's connection string: Microsoft's list of what
// Entra-only ingestion (DisableLocalAuth, monitoring.bicep) does not support names SDKs and the
// Profiler, not availability tests (azure-ad-authentication.md, "Unsupported scenarios"). No page
// says so outright: docs/operations.md says how to check after the first deployment.
resource healthTest 'Microsoft.Insights/webtests@2022-06-15' = {
  name: 'webtest-${namePrefix}-health'
  location: location
  tags: union(tags, {
    'hidden-link:${applicationInsights.id}': 'Resource'
  })
  kind: 'standard'
  properties: {
    SyntheticMonitorId: 'webtest-${namePrefix}-health'
    Name: 'GET /health'
    Description: 'GET ${healthUrl} answers 200: the app runs and reaches Cosmos DB and its storage (docs/api.md, "Health").'
    Enabled: true
    Kind: 'standard'
    // Seconds: each location every 5 minutes, one request a minute on average over five locations.
    Frequency: 300
    Timeout: 30
    // A failure counts once three attempts in a row failed (availability.md: most failures pass on retry).
    RetryEnabled: true
    Locations: [
      for id in availabilityLocations: {
        Id: id
      }
    ]
    Request: {
      RequestUrl: healthUrl
      HttpVerb: 'GET'
      ParseDependentRequests: false
      FollowRedirects: false
    }
    ValidationRules: {
      ExpectedHttpStatusCode: 200
      IgnoreHttpStatusCode: false
      SSLCheck: true
      SSLCertRemainingLifetimeCheck: 7
    }
  }
}

// Failed locations out of those tested, Microsoft's alert for a standard test: fires when
// availabilityLocations - 2 locations (3 of 5) fail within 5 minutes (availability.md, "Alert
// location threshold").
resource healthAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-${namePrefix}-health'
  location: 'global'
  tags: tags
  properties: {
    description: 'GET /health failed from ${length(availabilityLocations) - 2} or more of the ${length(availabilityLocations)} test locations: the API is down or cannot reach Cosmos DB or storage. docs/operations.md, "Alerts: what each means and what to do".'
    // 0: Critical. Nothing the API serves works.
    severity: 0
    enabled: true
    scopes: [
      healthTest.id
      applicationInsights.id
    ]
    evaluationFrequency: 'PT1M'
    windowSize: 'PT5M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria'
      webTestId: healthTest.id
      componentId: applicationInsights.id
      failedLocationCount: length(availabilityLocations) - 2
    }
    autoMitigate: true
    actions: [
      for id in actionGroupIds: {
        actionGroupId: id
      }
    ]
  }
}
