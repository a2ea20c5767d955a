// One private endpoint of privateNetworking (main.bicep): a private IP address in the
// private-endpoint subnet for one sub-resource (group id) of one account, the private DNS zone in
// which the account's public host name then resolves to that address, the zone's link to the VNet
// (without it the app's lookups would not see the zone) and the endpoint's DNS zone group, which
// writes and keeps the A record. Microsoft Learn, "Azure Private Endpoint private DNS zone values"
// (https://learn.microsoft.com/azure/private-link/private-endpoint-dns), lists the zone of each group
// id: privatelink.blob.core.windows.net (blob), privatelink.queue.core.windows.net (queue),
// privatelink.table.core.windows.net (table), privatelink.documents.azure.com (Sql),
// privatelink.vaultcore.azure.net (vault), privatelink.servicebus.windows.net (namespace).

param name string
param location string
param tags object = {}

@description('Resource id of the subnet the endpoint is placed in.')
param subnetId string

@description('Resource id of the virtual network the DNS zone is linked to.')
param virtualNetworkId string

@description('Resource id of the account the endpoint connects to.')
param privateLinkServiceId string

@description('The sub-resource of the account: blob, queue, table, Sql, vault, ...')
param groupId string

@description('The private DNS zone of that sub-resource, e.g. privatelink.blob.core.windows.net.')
param privateDnsZoneName string

resource zone 'Microsoft.Network/privateDnsZones@2024-06-01' = {
  name: privateDnsZoneName
  location: 'global'
  tags: tags
}

resource link 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2024-06-01' = {
  parent: zone
  name: 'link-${uniqueString(virtualNetworkId)}'
  location: 'global'
  tags: tags
  properties: {
    registrationEnabled: false
    virtualNetwork: {
      id: virtualNetworkId
    }
  }
}

resource endpoint 'Microsoft.Network/privateEndpoints@2024-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    subnet: {
      id: subnetId
    }
    privateLinkServiceConnections: [
      {
        name: name
        properties: {
          privateLinkServiceId: privateLinkServiceId
          groupIds: [
            groupId
          ]
        }
      }
    ]
  }
}

resource zoneGroup 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2024-05-01' = {
  parent: endpoint
  name: 'default'
  properties: {
    privateDnsZoneConfigs: [
      {
        name: replace(privateDnsZoneName, '.', '-')
        properties: {
          privateDnsZoneId: zone.id
        }
      }
    ]
  }
}

output id string = endpoint.id
output privateDnsZoneId string = zone.id
