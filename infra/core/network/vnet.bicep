// The virtual network of privateNetworking (main.bicep): one subnet the Function App integrates
// with for its outbound traffic, and one for the private endpoints of its storage account, Cosmos
// DB account and Key Vault (core/network/private-endpoint.bicep) and of any endpoint owner's Service
// Bus namespace (infra/README.md, "Private networking").

param name string
param location string
param tags object = {}

@description('Address space of the virtual network.')
param addressPrefix string = '10.0.0.0/16'

@description('Subnet the Function App integrates with (virtualNetworkSubnetId of the site).')
param appSubnetName string = 'app'
param appSubnetPrefix string = '10.0.1.0/24'

@description('Subnet the private endpoints are placed in.')
param privateEndpointSubnetName string = 'private-endpoints'
param privateEndpointSubnetPrefix string = '10.0.2.0/24'

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        addressPrefix
      ]
    }
    subnets: [
      {
        name: appSubnetName
        properties: {
          addressPrefix: appSubnetPrefix
          // Flex Consumption integrates only with a subnet delegated to Microsoft.App/environments
          // (not Microsoft.Web/serverFarms, which the other plans use), and the subscription needs
          // the Microsoft.App resource provider registered: Microsoft Learn, "Azure Functions Flex
          // Consumption plan hosting", "Considerations"
          // (https://learn.microsoft.com/azure/azure-functions/flex-consumption-plan#considerations).
          delegations: [
            {
              name: 'flex-consumption'
              properties: {
                serviceName: 'Microsoft.App/environments'
              }
            }
          ]
        }
      }
      {
        name: privateEndpointSubnetName
        properties: {
          addressPrefix: privateEndpointSubnetPrefix
          // As in Microsoft's azd Flex Consumption templates (Azure-Samples/
          // functions-quickstart-javascript-azd, infra/app/vnet.bicep): network policies (NSG, UDR)
          // do not apply to the private endpoints of this subnet.
          privateEndpointNetworkPolicies: 'Disabled'
        }
      }
    ]
  }
}

output id string = vnet.id
output name string = vnet.name
output appSubnetId string = '${vnet.id}/subnets/${appSubnetName}'
output privateEndpointSubnetId string = '${vnet.id}/subnets/${privateEndpointSubnetName}'
