// Cosmos DB for NoSQL, serverless, with the service's database and containers. Key (local) auth is
// disabled: the app reads and writes with its managed identity through a data-plane role
// assignment (app/access.bicep), which cannot create databases or containers, so they are made here.

param name string
param location string
param tags object = {}

param databaseName string

@description('Containers to create, each { name: string, partitionKeyPath: string }.')
param containers array

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: name
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    // Serverless: billed per request unit consumed, no provisioned throughput to size or pay for idle.
    capabilities: [
      {
        name: 'EnableServerless'
      }
    ]
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    // Entra ID only: no account keys for the data plane, and none for metadata writes either.
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: 'Enabled'
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
  }
}

// No throughput options: a serverless account takes none.
resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for container in containers: {
    parent: database
    name: container.name
    properties: {
      resource: {
        id: container.name
        partitionKey: {
          paths: [
            container.partitionKeyPath
          ]
          kind: 'Hash'
          version: 2
        }
      }
    }
  }
]

output name string = account.name
output id string = account.id
output endpoint string = account.properties.documentEndpoint
output databaseName string = database.name
