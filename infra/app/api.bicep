// The Function App on the Flex Consumption plan (Linux), with a system-assigned identity. Flex
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

@description('Node.js version of the Flex Consumption runtime.')
param nodeVersion string = '22'

@description('Memory of each instance, in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('The most instances the app scales out to: a ceiling on cost and on load sent to Cosmos DB.')
@minValue(1)
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
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references resolve with the system-assigned identity (the default, stated here).
    keyVaultReferenceIdentity: 'SystemAssigned'
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
          // The platform reads the package with the app's own identity (Storage Blob Data Owner on
          // the account, app/access.bicep): no connection string, since shared keys are disabled.
          authentication: {
            type: 'SystemAssignedIdentity'
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
output principalId string = site.identity.principalId
output defaultHostName string = site.properties.defaultHostName
