// The Function App on the Flex Consumption plan (Linux), running as a user-assigned identity (the
// runtime identity) and carrying a system-assigned one and any extra user-assigned ones for the
// identity-based endpoints to send and dead-letter with (ENDPOINT_USER_ASSIGNED_IDENTITIES). Flex
// Consumption takes the runtime, scale and deployment source from functionAppConfig; the app
// settings that older plans used for them (FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION,
// WEBSITE_RUN_FROM_PACKAGE, ...) are not supported there and are not set.

param name string
param planName string
param location string
param tags object = {}

@description('Name of the azd service this app hosts (azure.yaml); azd finds the app by this tag.')
param serviceName string = 'api'

@description('Blob endpoint of the storage account that holds the deployment container.')
param storageBlobEndpoint string

@description('Blob container Flex Consumption deploys the app package from.')
param deploymentContainerName string

@description('Every app setting, by name (already merged in main.bicep).')
param appSettings object

@description('Resource id of the user-assigned identity the app runs as. Its roles (app/access.bicep) are assigned before this module deploys.')
param identityId string

@description('Resource ids of extra user-assigned identities attached for identity-based endpoints (main.bicep checked that the runtime identity is not among them). They get no role here: endpoint owners grant them roles on their own Service Bus and storage.')
param endpointIdentityIds array = []

@description('Node.js version of the Flex Consumption runtime.')
param nodeVersion string = '22'

// Flex Consumption's instance sizes: 512 MB = 0.25 cores, 2048 MB = 1, 4096 MB = 2
// (MicrosoftDocs/azure-docs articles/azure-functions/flex-consumption-plan.md, "Instance sizes").
@description('Memory of each instance, in MB: 512 (0.25 cores), 2048 (1 core) or 4096 (2 cores). 512 by default, which the app\'s measured resident memory fits (main.bicep says why).')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 512

// functionAppConfig.scaleAndConcurrency.triggers.http.perInstanceConcurrency (MicrosoftDocs/azure-docs
// articles/azure-functions/functions-infrastructure-as-code.md, "Application configuration"): how many
// HTTP requests one instance of the HTTP function group takes at once before the platform scales out.
// Set explicitly, it no longer follows the instance size.
@description('Concurrent HTTP requests per instance. 16 by default: a 512 MB instance has 0.25 cores, and 16 requests that mostly wait on Cosmos DB keep it busy without queueing CPU work for long.')
@minValue(1)
@maxValue(1000)
param httpPerInstanceConcurrency int = 16

// Flex Consumption scales per function group: all HTTP functions together, each queue-triggered
// function on its own instances. maximumInstanceCount caps the on-demand instances of each group,
// not of the app, so the app as a whole may run (number of groups) x maximumInstanceCount.
// The range is Microsoft Learn's, "Event-driven scaling in Azure Functions", "Limit scale-out"
// (https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out):
// "Currently the lowest maximum instance count value is 1, and the highest supported maximum
// instance count value is 1000". The floor of 40 was the preview's ("The lowest maximum scale in
// preview is 40", flex-consumption-plan.md while in preview), since lifted.
@description('The most on-demand instances each function group scales out to: per function group, not per app. From 1 to 1000, the range of Microsoft Learn\'s "Event-driven scaling in Azure Functions", "Limit scale-out" (https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out); the preview\'s floor of 40 no longer applies.')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 100

// App Service authentication (Easy Auth), an optional gate in front of the code. The code checks every
// token itself (AUTH_MODE=entra, main.bicep), so the gate adds no authority: it only keeps requests
// without a valid token for the registration from reaching (and waking) the code. Flex Consumption
// supports it since general availability (its preview listed Easy Auth as unsupported).

@description('Turn Easy Auth on: a request without a valid token for authClientId gets an empty 401 from the platform, except on easyAuthExcludedPaths. Off: the setting is still written, disabled, so that turning it off takes effect.')
param enableEasyAuth bool = false

@description('Client id of the API\'s app registration.')
param authClientId string

@description('Issuer of the tokens (AUTH_AUTHORITY, the v2 endpoint of the tenant).')
param authIssuer string

@description('Audiences a token may carry (those of AUTH_AUDIENCE).')
param authAudiences array

@description('Paths Easy Auth lets through without a token: the anonymous routes of the API.')
param easyAuthExcludedPaths array = [
  '/health'
  '/openapi.json'
]

// Regional VNet integration (outbound only: the app's own endpoint stays public, for callers, azd's
// deployment and the /health web test). Microsoft Learn, "Azure Functions Flex Consumption plan
// hosting", "Virtual network integration"
// (https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#virtual-network-integration).
@description('Resource id of the subnet (delegated to Microsoft.App/environments) the app integrates with; empty: no VNet integration (privateNetworking off).')
param virtualNetworkSubnetId string = ''

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    // Linux: Flex Consumption runs on Linux only.
    reserved: true
  }
}

resource site 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': serviceName })
  kind: 'functionapp,linux'
  // The runtime identity (identityId) is what the code's DefaultAzureCredential, the host's storage
  // connection and the telemetry name by client id (main.bicep, var platformSettings): adding others
  // changes none of them. The system-assigned identity and endpointIdentityIds are only for
  // identity-based endpoints (ManagedIdentityCredential in the code) and hold no role of this
  // deployment: a role of the service's own storage on them would let any endpoint owner reach it.
  identity: {
    type: 'SystemAssigned, UserAssigned'
    userAssignedIdentities: union(
      {
        '${identityId}': {}
      },
      toObject(endpointIdentityIds, id => id, id => {})
    )
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references resolve with the user-assigned identity, whose Key Vault Secrets User role
    // exists before the site does; the default would be the system-assigned identity, which has
    // none (it is for endpoints only).
    keyVaultReferenceIdentity: identityId
    // privateNetworking: outbound traffic to the private endpoints' addresses goes through this
    // subnet, and the VNet's DNS resolves the accounts' host names in the linked private zones.
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    // Only the siteConfig properties Flex Consumption accepts. Microsoft Learn, "Azure Functions
    // Flex Consumption plan hosting", "Deprecated properties and settings"
    // (https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#deprecated-properties-and-settings),
    // points to "Flex Consumption plan deprecations"
    // (https://learn.microsoft.com/azure/azure-functions/functions-app-settings#flex-consumption-plan-deprecations)
    // for the site properties and app settings that are deprecated or moved to functionAppConfig.
    // - No ftpsState: Flex Consumption sites reject it ("The following list of 4 site configuration
    //   properties (Site.SiteConfig.FtpsState, ...) for Flex Consumption sites is invalid",
    //   microsoft/azure-pipelines-tasks#21032), and deployment is from the blob container of
    //   functionAppConfig.deployment, not FTP.
    // - No http20Enabled: Microsoft's Flex Consumption templates (Azure-Samples/
    //   functions-quickstart-javascript-azd, infra/app/api.bicep) set neither it nor ftpsState.
    // - minTlsVersion, scmMinTlsVersion: general App Service site settings (Microsoft.Web/sites
    //   siteConfig, https://learn.microsoft.com/azure/templates/microsoft.web/sites), not on the
    //   Flex deprecation list; 1.2 is also the platform's default for new apps.
    siteConfig: {
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      appSettings: [
        for setting in items(appSettings): {
          name: setting.key
          value: string(setting.value)
        }
      ]
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storageBlobEndpoint}${deploymentContainerName}'
          // The platform reads the package with the app's identity (Storage Blob Data Owner on the
          // account, app/access.bicep): no connection string, since shared keys are disabled.
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        instanceMemoryMB: instanceMemoryMB
        maximumInstanceCount: maximumInstanceCount
        triggers: {
          http: {
            perInstanceConcurrency: httpPerInstanceConcurrency
          }
        }
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
    }
  }
}

// Written whether on or not (platform.enabled), so that setting enableEasyAuth back to false turns it
// off rather than leaving the last setting in place.
resource easyAuth 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: site
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: enableEasyAuth
    }
    globalValidation: {
      requireAuthentication: true
      unauthenticatedClientAction: 'Return401'
      excludedPaths: easyAuthExcludedPaths
    }
    httpSettings: {
      requireHttps: true
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        // Bearer tokens only: no client secret, since the platform signs no one in.
        registration: {
          clientId: authClientId
          openIdIssuer: authIssuer
        }
        // No defaultAuthorizationPolicy: any client of the tenant with a token for the API passes
        // the gate; what it may do is for the service's role assignments to say.
        validation: {
          allowedAudiences: authAudiences
        }
      }
    }
    login: {
      tokenStore: {
        enabled: false
      }
    }
  }
}

output name string = site.name
output id string = site.id
output defaultHostName string = site.properties.defaultHostName
@description('Principal (object) id of the system-assigned identity, which identity-based endpoints use by default: endpoint owners grant it roles on their Service Bus topic and dead-letter container.')
output systemIdentityPrincipalId string = site.identity.principalId
