// The app's one storage account: the Functions host's own storage (keys, leases, timers), the blob
// container Flex Consumption deploys the app package from, and the service's event queues.
// Shared-key access is off: everything, the host included, signs in with Microsoft Entra ID.

param name string
param location string
param tags object = {}

@description('Blob container that holds the deployment package (functionAppConfig.deployment.storage).')
param deploymentContainerName string

@description('Queues to create; the service writes to them and the queue trigger reads them.')
param queueNames array

@description('privateNetworking of main.bicep: public network access off, reached through private endpoints only.')
param privateNetworking bool = false

resource storage 'Microsoft.Storage/storageAccounts@2024-01-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    // No account keys, no SAS signed with them: access is by role assignment only.
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    // privateNetworking: no public endpoint; the app reaches blob, queue and table through the
    // private endpoints of main.bicep, and the network rules deny by default with no bypass, as
    // Microsoft's azd Flex Consumption templates set them with their VNet on (Azure-Samples/
    // functions-quickstart-javascript-azd, infra/main.bicep, vnetEnabled). Off: as before.
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    networkAcls: privateNetworking
      ? {
          defaultAction: 'Deny'
          bypass: 'None'
        }
      : {
          defaultAction: 'Allow'
          bypass: 'AzureServices'
        }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2024-01-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2024-01-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2024-01-01' = {
  parent: storage
  name: 'default'
}

// Created here so they exist before the first event arrives; the service and the host would create
// them on first use too (Storage Queue Data Contributor allows it).
resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2024-01-01' = [
  for queueName in queueNames: {
    parent: queueService
    name: queueName
  }
]

output name string = storage.name
output id string = storage.id
// The service endpoints as this cloud names them (https://<account>.blob.core.windows.net/ in the
// public cloud, .core.usgovcloudapi.net or .core.chinacloudapi.cn elsewhere): the app's host
// storage settings take them as they are (main.bicep, var platformSettings).
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output queueEndpoint string = storage.properties.primaryEndpoints.queue
output tableEndpoint string = storage.properties.primaryEndpoints.table
output deploymentContainerName string = deploymentContainer.name
