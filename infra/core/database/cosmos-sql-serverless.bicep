// Cosmos DB for NoSQL, serverless, with the service's database and containers. Key (local) auth is
// disabled: the app reads and writes with its managed identity through a data-plane role
// assignment (app/access.bicep), which cannot create databases or containers, so they are made here.

param name string
param location string
param tags object = {}

param databaseName string

@description('Containers to create, each { name: string, partitionKeyPath: string }.')
param containers array

@description('privateNetworking of main.bicep: public network access off, reached through a private endpoint (group id Sql) only.')
param privateNetworking bool = false

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
    // privateNetworking: only through the private endpoint of main.bicep (Data Explorer in the
    // portal and the operations team's reads from outside the VNet stop working too).
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
    // Continuous backup, 7-day tier: any second of the last 7 days can be restored into a new
    // account (docs/operations.md, "Restore"). The 7-day tier is not charged for backup storage,
    // only each restore is ("Continuous 30-day tier vs Continuous 7-day tier",
    // https://learn.microsoft.com/azure/cosmos-db/continuous-backup-restore-introduction);
    // serverless is not among its "Current limitations" there. Switching an account between
    // periodic and continuous is one-way, and Azure refuses it together with any other change to
    // the account ("Cannot update continuous backup mode and other properties at the same time",
    // Azure/bicep#15109): infra/README.md says how to migrate an existing account first.
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: {
        tier: 'Continuous7Days'
      }
    }
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
