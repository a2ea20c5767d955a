// Log Analytics workspace and a workspace-based Application Insights component: the Functions host
// and the Node.js worker send requests, traces (context.log) and exceptions here.

@description('Name of the Log Analytics workspace.')
param logAnalyticsName string

@description('Name of the Application Insights component.')
param applicationInsightsName string

param location string
param tags object = {}

@description('Days Log Analytics keeps data. 30 is the free retention of the PerGB2018 tier.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

// The daily ingestion cap (MicrosoftDocs/azure-monitor-docs articles/azure-monitor/logs/daily-cap.md;
// "-1 means unlimited" in WorkspaceCapping of the Workspaces REST API, 2020-03-01-preview, and a
// workspace without a cap reads -1). No default here: main.bicep's logDailyCapGb is the one place it
// is chosen.
@description('Daily ingestion cap of the workspace, in GB; -1: no cap. Bounds what a flood of telemetry (failures, an attacker\'s requests) can cost in a day. Ingestion stops when it is reached, until the daily reset.')
@minValue(-1)
param dailyCapGb int

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    workspaceCapping: {
      dailyQuotaGb: dailyCapGb
    }
  }
}

// Workspace-based: classic (standalone) Application Insights is retired, and queries then run in
// the same workspace as every other log of the app. Its telemetry is ingested into the workspace, so
// the workspace's daily cap bounds it (for a workspace-based component the effective cap is the
// lower of the two settings, and none is set on the component here; daily-cap.md, "Application
// Insights").
resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    // Entra ID ingestion only: the connection string's instrumentation key alone is no longer
    // enough to send telemetry. The app authenticates with its identity
    // (APPLICATIONINSIGHTS_AUTHENTICATION_STRING in main.bicep), which holds Monitoring Metrics
    // Publisher on this component (app/access.bicep).
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output applicationInsightsId string = applicationInsights.id
output applicationInsightsConnectionString string = applicationInsights.properties.ConnectionString
output logAnalyticsName string = logAnalytics.name
