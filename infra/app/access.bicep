// What the app's user-assigned identity may do, and optionally what the person running azd and an
// operations team (operatorTeamPrincipalIds) may do for operations. A module of its own so that the role assignment names (guid of scope, principal
// and role) are computed from a parameter, as ARM requires, not from a resource output.
//
// main.bicep deploys this module before the Function App (app/api.bicep depends on it): every role
// the app's settings need is assigned before the site exists, so its first start does not see an
// unresolved Key Vault reference, rejected telemetry or a 403 from storage or Cosmos DB. Only the
// propagation of new assignments (usually seconds, at worst minutes) is left to wait for.

@description('Principal (object) id of the Function App\'s user-assigned identity.')
param appPrincipalId string

@description('Object id of the person or pipeline running azd (AZURE_PRINCIPAL_ID); empty grants nothing.')
param operatorPrincipalId string = ''

@description('Object ids of an operations team (users, groups or service principals): Key Vault Secrets User, queue data access on the event and poison queues, Cosmos DB Built-in Data Reader, Monitoring Reader on Application Insights. Empty grants nothing.')
param operatorTeamPrincipalIds array = []

@description('The queues the operations team may peek, replay and drain: TWIN_EVENTS_QUEUE and its poison queue.')
param operatorTeamQueueNames array = []

param storageAccountName string
param keyVaultName string
param cosmosAccountName string
param applicationInsightsName string

// Built-in role definition ids (the same in every tenant).
var roles = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
  monitoringReader: '43d0d8ad-25c7-4714-9337-8ba259a9fe05'
}

// Cosmos DB Built-in Data Contributor: a data-plane role of the account itself, not an Azure RBAC
// role; it reads and writes items but cannot create databases or containers.
var cosmosDataContributorRoleId = '00000000-0000-0000-0000-000000000002'

// Cosmos DB Built-in Data Reader: reads items and runs queries; writes nothing.
var cosmosDataReaderRoleId = '00000000-0000-0000-0000-000000000001'

// Blob Data Owner: the host's keys, leases and the Flex Consumption deployment package.
// Queue Data Contributor: the queue trigger, the host's poison-queue moves, and the service's own
// queue client (ingest, retries, poison records, creating the queues if missing).
// Table Data Contributor: the host persists its diagnostic events in Table storage.
var appStorageRoles = [
  roles.storageBlobDataOwner
  roles.storageQueueDataContributor
  roles.storageTableDataContributor
]

resource storage 'Microsoft.Storage/storageAccounts@2024-01-01' existing = {
  name: storageAccountName
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource appStorage 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in appStorageRoles: {
    name: guid(storage.id, appPrincipalId, roleId)
    scope: storage
    properties: {
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
    }
  }
]

// Reads the secret values the app settings reference (SECRETS_ENCRYPTION_KEY).
resource appSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, appPrincipalId, roles.keyVaultSecretsUser)
  scope: vault
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsUser)
  }
}

// Sends the host's telemetry: Application Insights takes Entra ID ingestion only (local auth off,
// core/monitor/monitoring.bicep), authenticated as APPLICATIONINSIGHTS_AUTHENTICATION_STRING says.
// Despite the name, the role covers every telemetry type, not only metrics.
resource appTelemetry 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, appPrincipalId, roles.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
  }
}

resource appCosmosData 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: cosmos
  name: guid(cosmos.id, appPrincipalId, cosmosDataContributorRoleId)
  properties: {
    principalId: appPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributorRoleId}'
    scope: cosmos.id
  }
}

// The operator: write a new key version during a rotation, peek and replay the poison queue with
// `--auth-mode login`, and run `npm run seed` or inspect data against the account. No principalType:
// it may be a user or a service principal.
resource operatorSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(vault.id, operatorPrincipalId, roles.keyVaultSecretsOfficer)
  scope: vault
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsOfficer)
  }
}

resource operatorQueues 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(storage.id, operatorPrincipalId, roles.storageQueueDataContributor)
  scope: storage
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageQueueDataContributor)
  }
}

resource operatorCosmosData 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (!empty(operatorPrincipalId)) {
  parent: cosmos
  name: guid(cosmos.id, operatorPrincipalId, cosmosDataContributorRoleId)
  properties: {
    principalId: operatorPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributorRoleId}'
    scope: cosmos.id
  }
}

// The operations team (operatorTeamPrincipalIds, from OPERATOR_PRINCIPAL_IDS): read the key
// (Key Vault Secrets User: a rotation's new version is written by the operator above), peek,
// replay and drain the event and poison queues (Storage Queue Data Contributor on those two queues
// only, not the account: no blob or table data), read items (Cosmos DB Built-in Data Reader) and
// query the logs and metrics (Monitoring Reader on Application Insights). No principalType: a
// user, a group or a service principal. Duplicates are dropped; a principal both here and the
// operator gets both sets (distinct roles or scopes, so no assignment is made twice).
var teamPrincipalIds = union(filter(map(operatorTeamPrincipalIds, id => trim(string(id))), id => !empty(id)), [])
var teamQueueGrants = flatten(map(teamPrincipalIds, id => map(operatorTeamQueueNames, queue => {
  principalId: id
  queue: queue
})))

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2024-01-01' existing = {
  parent: storage
  name: 'default'
}

resource teamQueues 'Microsoft.Storage/storageAccounts/queueServices/queues@2024-01-01' existing = [
  for queue in operatorTeamQueueNames: {
    parent: queueService
    name: queue
  }
]

resource teamSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for id in teamPrincipalIds: {
    name: guid(vault.id, id, roles.keyVaultSecretsUser)
    scope: vault
    properties: {
      principalId: id
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsUser)
    }
  }
]

resource teamQueueData 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for grant in teamQueueGrants: {
    name: guid(storage.id, grant.queue, grant.principalId, roles.storageQueueDataContributor)
    scope: teamQueues[indexOf(operatorTeamQueueNames, grant.queue)]
    properties: {
      principalId: grant.principalId
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageQueueDataContributor)
    }
  }
]

resource teamCosmosData 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = [
  for id in teamPrincipalIds: {
    parent: cosmos
    name: guid(cosmos.id, id, cosmosDataReaderRoleId)
    properties: {
      principalId: id
      roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataReaderRoleId}'
      scope: cosmos.id
    }
  }
]

resource teamMonitoring 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for id in teamPrincipalIds: {
    name: guid(applicationInsights.id, id, roles.monitoringReader)
    scope: applicationInsights
    properties: {
      principalId: id
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringReader)
    }
  }
]
