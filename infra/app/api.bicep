// The Function App on the Flex Consumption plan (Linux), running as a user-assigned identity. Flex
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

@description('Node.js version of the Flex Consumption runtime.')
param nodeVersion string = '22'

@description('Memory of each instance, in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

// Flex Consumption scales per function group: all HTTP functions together, each queue-triggered
// function on its own instances. maximumInstanceCount caps the on-demand instances of each group,
// not of the app, so the app as a whole may run (number of groups) x maximumInstanceCount.
@description('The most on-demand instances each function group scales out to: per function group, not per app. 40 is the lowest value Flex Consumption accepts.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

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
  // Only the user-assigned identity: the code's DefaultAzureCredential, the host's storage
  // connection and the telemetry all name it by client id (main.bicep, var platformSettings).
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references resolve with the user-assigned identity, whose Key Vault Secrets User role
    // exists before the site does; the default would be a system-assigned identity, which has none.
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
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
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
    }
  }
}

output name string = site.name
output id string = site.id
output defaultHostName string = site.properties.defaultHostName
