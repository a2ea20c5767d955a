// Everything the twin resource service runs on in Azure, for `azd up` (azure.yaml at the repository
// root). Subscription scope, as azd expects: the deployment makes its own resource group, and every
// name derives from the azd environment name, so each environment is a separate, repeatable copy.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment (AZURE_ENV_NAME); names and tags of every resource derive from it.')
param environmentName string

// The regions that offer Flex Consumption, as `az functionapp list-flexconsumption-locations` lists
// them and the official azd Flex Consumption templates allow them (Azure-Samples/
// functions-quickstart-dotnet-azd, February 2026): azd offers only these when it asks, and a region
// without the plan fails here rather than halfway through provisioning. A region added since can be
// added to the list (test/unit/infra-location.test.ts).
@minLength(1)
@description('Region of every resource. It must offer the Flex Consumption plan (az functionapp list-flexconsumption-locations).')
@allowed([
  'australiaeast'
  'australiasoutheast'
  'brazilsouth'
  'canadacentral'
  'centralindia'
  'centralus'
  'eastasia'
  'eastus'
  'eastus2'
  'eastus2euap'
  'francecentral'
  'germanywestcentral'
  'italynorth'
  'japaneast'
  'koreacentral'
  'northcentralus'
  'northeurope'
  'norwayeast'
  'southafricanorth'
  'southcentralus'
  'southeastasia'
  'southindia'
  'spaincentral'
  'swedencentral'
  'uaenorth'
  'uksouth'
  'ukwest'
  'westcentralus'
  'westeurope'
  'westus'
  'westus2'
  'westus3'
])
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Resource group to create; empty: rg-<environmentName>.')
param resourceGroupName string = ''

@description('Object id of whoever runs azd (AZURE_PRINCIPAL_ID): granted the operations roles of app/access.bicep. Empty grants nothing.')
param principalId string = ''

@description('OPERATOR_PRINCIPAL_IDS: object ids of an operations team (users, groups or service principals), comma-separated: Key Vault Secrets User, Storage Queue Data Contributor on the event and poison queues, Cosmos DB Built-in Data Reader and Monitoring Reader on Application Insights (app/access.bicep). Empty grants nothing.')
param operatorPrincipalIds string = ''

@secure()
@minLength(44)
@maxLength(44)
@description('SECRETS_ENCRYPTION_KEY: 32 random bytes in base64 (openssl rand -base64 32). Kept in Key Vault; the app reads it through a Key Vault reference.')
param secretsEncryptionKey string

// The service's tunable settings. Each default is the default of src/config.ts
// (test/unit/infra-settings.test.ts fails when they differ).

@minLength(1)
@maxLength(255)
@description('COSMOS_DATABASE: the database id.')
param cosmosDatabaseName string = 'twin-resources'

// A point-in-time restore makes a new account (docs/operations.md, "Restore"): naming it here
// points the app, its data-plane role (app/access.bicep: data-plane role assignments are not
// restored) and COSMOS_ENDPOINT at it. The account this deployment made is then left alone.
@description('COSMOS_ACCOUNT_NAME: the Cosmos DB account to use, in the environment\'s resource group. Empty: cosmos-<token>, the one provisioning creates. Set to the account a point-in-time restore created (docs/operations.md, "Restore").')
param cosmosAccountName string = ''

@minValue(1)
@description('COSMOS_REQUEST_TIMEOUT_MS: how long one Cosmos DB request may take before the caller gets 503.')
param cosmosRequestTimeoutMs int = 5000

@minValue(1)
@maxValue(1048576)
@description('AUTH_PROFILE_CONTENT_MAX_BYTES: quota on authenticationProfileContent, in UTF-8 bytes.')
param authProfileContentMaxBytes int = 4096

@minValue(1)
@maxValue(1000)
@description('AUTH_PROFILE_MAX_COUNT: quota on the number of authentication profiles.')
param authProfileMaxCount int = 10

@minValue(1)
@maxValue(100)
@description('ENDPOINTS_PER_INSTANCE_MAX: quota on endpoints per twins instance.')
param endpointsPerInstanceMax int = 6

@minValue(1)
@maxValue(100)
@description('ROUTES_PER_INSTANCE_MAX: quota on event routes per twins instance.')
param routesPerInstanceMax int = 6

@minLength(3)
@maxLength(56)
@description('TWIN_EVENTS_QUEUE: the storage queue events are ingested into; <name>-poison is created with it.')
param twinEventsQueueName string = 'twin-events'

@minValue(1)
@description('DELIVERY_MAX_ATTEMPTS: delivery attempts per endpoint before an event is dead-lettered.')
param deliveryMaxAttempts int = 10

@minValue(1)
@description('DELIVERY_TTL_SECONDS: how long after ingest an event may still be retried.')
param deliveryTtlSeconds int = 86400

@minValue(1)
@description('DELIVERY_BACKOFF_BASE_SECONDS: base of the exponential retry delay.')
param deliveryBackoffBaseSeconds int = 10

@minValue(1)
@description('DELIVERY_BACKOFF_CAP_SECONDS: the longest retry delay.')
param deliveryBackoffCapSeconds int = 3600

@minValue(0)
@maxValue(1000)
@description('INGEST_LINGER_MS: how long a busy instance\'s ingest waits for more requests to share its queue message (fewer messages, executions and queue operations; docs/costs.md).')
param ingestLingerMs int = 100

@minValue(1)
@description('DELIVERY_SEND_TIMEOUT_MS: how long one Service Bus send may take before it counts as failed.')
param deliverySendTimeoutMs int = 15000

@minValue(1)
@maxValue(600000)
@description('IDENTITY_TOKEN_TIMEOUT_MS: how long one token request to the app\'s managed identity endpoint may take before it fails and is tried again later.')
param identityTokenTimeoutMs int = 10000

@minValue(0)
@description('ENDPOINT_CACHE_SECONDS: how long delivery caches an instance\'s endpoint list.')
param endpointCacheSeconds int = 30

@minLength(1)
@description('SERVICEBUS_HOST_SUFFIXES: comma-separated host suffixes an endpoint\'s Service Bus Endpoint must end with.')
param serviceBusHostSuffixes string = '.servicebus.windows.net,.servicebus.chinacloudapi.cn,.servicebus.usgovcloudapi.net'

@minLength(1)
@description('STORAGE_HOST_SUFFIXES: comma-separated host suffixes an endpoint\'s dead-letter URL must end with.')
// Deliberately every cloud's blob host, not environment().suffixes.storage (the deployment's cloud
// only): the same default as src/config.ts, which the rule no-hardcoded-env-urls cannot know.
#disable-next-line no-hardcoded-env-urls
param storageHostSuffixes string = '.blob.core.windows.net,.blob.core.chinacloudapi.cn,.blob.core.usgovcloudapi.net'

@description('PUBLIC_BASE_URL: where clients reach the API when not on the app\'s own host name (a custom domain, API Management), e.g. https://api.contoso.com/twins; nextLink and the OpenAPI server are built on it. Empty: https://WEBSITE_HOSTNAME, which the platform sets.')
param publicBaseUrl string = ''

// Identity-based endpoints (docs/operations.md, "Identity-based endpoints: who grants what"). The
// app gets a system-assigned identity for them; these user-assigned identities are attached too and
// listed in ENDPOINT_USER_ASSIGNED_IDENTITIES, the only ones an endpoint may name. None gets a role
// here: each endpoint's owner grants roles on their own topic and container. Never the runtime
// identity (id-<token>), which holds the roles on this deployment's own storage, Cosmos DB and Key
// Vault: the deployment fails if it is listed (var endpointIdentityIdList).
@description('ENDPOINT_IDENTITY_IDS: resource ids of user-assigned identities (/subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>), comma-separated, to attach to the app for identity-based endpoints to name (ENDPOINT_USER_ASSIGNED_IDENTITIES). Attaching one needs Microsoft.ManagedIdentity/userAssignedIdentities/assign/action on it (Managed Identity Operator). Never the app\'s runtime identity. Empty: endpoints may use the system-assigned identity only.')
param endpointIdentityIds string = ''

// Callers (infra/README.md, "Callers and the app registration"). The app runs AUTH_MODE=entra: every
// route but /health and /openapi.json takes an Entra ID token of this tenant, judged by the service's
// own role assignments. Azure never runs AUTH_MODE=keys (test/unit/infra-auth.test.ts).

@description('Client id of an existing app registration for the API (azd env AUTH_CLIENT_ID). Empty: provisioning creates one, with its service principal, through the Microsoft Graph Bicep extension (core/security/app-registration.bicep), which needs the right to create applications in the tenant.')
param authClientId string = ''

@description('With authClientId: the registration\'s App ID URI when it is not api://<authClientId> (such as https://api.contoso.com/twins); tokens for it are accepted too. Empty: none.')
param authAppIdUri string = ''

@description('AUTH_ADMIN_PRINCIPALS: comma-separated principals that hold Owner at / without a role assignment, to make the first assignments: object ids of the deployment\'s tenant, or {tenant id}/{object id}. Empty: the operator (principalId).')
param authAdminPrincipals string = ''

@minValue(0)
@maxValue(300)
@description('AUTH_CACHE_SECONDS: how long each host caches a principal\'s role assignments; a revoked assignment stops working within it.')
param authCacheSeconds int = 30

@description('Put App Service authentication (Easy Auth) in front of the code as an outer gate: a request without a valid token for the registration gets an empty 401 from the platform, except /health and /openapi.json. The code checks every token either way.')
param enableEasyAuth bool = false

// Scale of the Function App.

// Flex Consumption's instance sizes and their cores (Microsoft's quota table, "Instance sizes" and
// "Regional subscription memory quotas" in MicrosoftDocs/azure-docs
// articles/azure-functions/flex-consumption-plan.md): 512 MB = 0.25 cores, 2048 MB = 1, 4096 MB = 2.
// The platform adds 272 MB of its own for system and host processes, not billed. GB-s are billed on
// the configured size: a second of a 512 MB instance costs a quarter of a second of the 2048 MB the
// plan defaults to.
@allowed([
  512
  2048
  4096
])
@description('Memory of each Flex Consumption instance, in MB: 512, 2048 or 4096 (the sizes Flex Consumption offers). 512 by default: the app\'s resident memory, measured in the bench, fits it, and GB-s are billed on this size: an instance second costs a quarter of one of 2048 MB. A 512 MB instance has 0.25 cores; see httpPerInstanceConcurrency.')
param instanceMemoryMB int = 512

// The HTTP concurrency of each instance, functionAppConfig.scaleAndConcurrency.triggers.http
// .perInstanceConcurrency of the site (MicrosoftDocs/azure-docs
// articles/azure-functions/functions-infrastructure-as-code.md, "Application configuration", and
// articles/azure-functions/flex-consumption-how-to.md, "Set HTTP concurrency limits"). Set, it stays
// whatever instanceMemoryMB is; unset, the platform picks a default by instance size.
@minValue(1)
@maxValue(1000)
@description('Concurrent HTTP requests each instance takes before Flex Consumption scales out another (per-instance HTTP concurrency). 16 by default: a 512 MB instance has a quarter core (Microsoft\'s Flex Consumption quota table: 512 MB = 0.25 cores), and 16 concurrent requests that mostly wait on Cosmos DB are what it serves without queueing CPU work for long. Raise it with a larger instanceMemoryMB.')
param httpPerInstanceConcurrency int = 16

// Flex Consumption scales per function group, and maximumInstanceCount caps each group: the HTTP
// functions share one group, and each queue-triggered function (twinEvents-deliver) is a group of
// its own, so the app as a whole may run up to 2 x maximumInstanceCount instances (more if a
// non-HTTP function is added). Size it for the Cosmos DB load of one group.
// The range: Microsoft Learn, "Event-driven scaling in Azure Functions", "Limit scale-out"
// (https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out), 1 to
// 1000 (the preview's lowest maximum was 40).
@minValue(1)
@maxValue(1000)
@description('The most on-demand instances each function group scales out to: per function group (the HTTP functions; each queue-triggered function), not per app. From 1 to 1000, the range of Microsoft Learn\'s "Event-driven scaling in Azure Functions", "Limit scale-out" (https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out); the preview\'s floor of 40 no longer applies.')
param maximumInstanceCount int = 100

// Telemetry (core/monitor/monitoring.bicep).

// The workspace's daily ingestion cap (workspaceCapping.dailyQuotaGb of
// Microsoft.OperationalInsights/workspaces; MicrosoftDocs/azure-monitor-docs
// articles/azure-monitor/logs/daily-cap.md). Application Insights is workspace-based, so its
// telemetry lands in the workspace and the cap bounds it too (the effective cap is the lower of the
// two, and this deployment sets none on the component). Once reached, ingestion stops until the
// workspace's daily reset: the alerts below see no traces for the rest of that day. The cap is
// approximate, and what is ingested past it is still billed.
@minValue(-1)
@description('LOG_DAILY_CAP_GB: daily ingestion cap of the Log Analytics workspace, in GB (whole GB); -1: no cap, as Azure defines it. 1 by default, a service telemetry budget: it bounds what a flood of failures or an attacker\'s requests can cost in ingestion, about $2.30 a day at $2.30 per GB (PerGB2018). At about 1 KB of telemetry per request, 1 GB is about a million requests a day: raise it for more. When reached, telemetry stops until the next daily reset.')
param logDailyCapGb int = 1

// Alerts (core/monitor/alerts.bicep).

@description('Email address notified when events are poisoned or dead-lettered; empty: the alerts still fire in Azure Monitor but notify no one.')
param alertEmailAddress string = ''

// Private networking (infra/README.md, "Private networking"). Off, none of the network resources
// below is deployed and the accounts stay as they were.
@description('PRIVATE_NETWORKING: a VNet the Function App integrates with (subnet delegated to Microsoft.App/environments), private endpoints and private DNS zones for its storage account (blob, queue, table), Cosmos DB account and Key Vault, and public network access off on those three. Endpoint owners can then put private endpoints for their Service Bus namespaces in the same VNet (infra/README.md, "Private networking"). Data planes are then unreachable from outside the VNet, the operator\'s machine included.')
param privateNetworking bool = false

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}
var functionAppName = 'func-${resourceToken}'
var deploymentContainerName = 'app-package'
var encryptionKeySecretName = 'secrets-encryption-key'

// Every container of src/store/containers.ts with its partition key path, and no other
// (test/unit/infra-containers.test.ts holds the two in step). The app cannot create containers:
// its Cosmos DB data-plane role does not allow it.
var cosmosContainers = [
  {
    name: 'profiles'
    partitionKeyPath: '/scope'
  }
  {
    name: 'queueEndpoints'
    partitionKeyPath: '/instanceKey'
  }
  {
    name: 'clusterAssessments'
    partitionKeyPath: '/projectKey'
  }
  {
    name: 'roleAssignments'
    partitionKeyPath: '/id'
  }
]

resource rg 'Microsoft.Resources/resourceGroups@2022-09-01' = {
  name: !empty(resourceGroupName) ? resourceGroupName : 'rg-${environmentName}'
  location: location
  tags: tags
}

// The app's identity, made first so that every role it needs can be assigned (module access) before
// the app exists (module api depends on access).
module identity 'core/security/user-assigned-identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: 'id-${resourceToken}'
    location: location
    tags: tags
  }
}

module monitoring 'core/monitor/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: 'log-${resourceToken}'
    applicationInsightsName: 'appi-${resourceToken}'
    location: location
    tags: tags
    dailyCapGb: logDailyCapGb
  }
}

module storage 'core/storage/storage-account.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: 'st${resourceToken}'
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
    queueNames: [
      twinEventsQueueName
      '${twinEventsQueueName}-poison'
    ]
    privateNetworking: privateNetworking
  }
}

module cosmos 'core/database/cosmos-sql-serverless.bicep' = {
  name: 'cosmos'
  scope: rg
  params: {
    name: !empty(cosmosAccountName) ? cosmosAccountName : 'cosmos-${resourceToken}'
    location: location
    tags: tags
    databaseName: cosmosDatabaseName
    containers: cosmosContainers
    privateNetworking: privateNetworking
  }
}

module keyVault 'core/security/key-vault.bicep' = {
  name: 'keyVault'
  scope: rg
  params: {
    name: 'kv-${resourceToken}'
    location: location
    tags: tags
    encryptionKeySecretName: encryptionKeySecretName
    encryptionKey: secretsEncryptionKey
    privateNetworking: privateNetworking
  }
}

// privateNetworking: the VNet, and a private endpoint with its private DNS zone for each data plane
// the app uses. Storage: blob (host keys and leases, the deployment package), queue (the trigger and
// the service's queue client) and table (the host's diagnostic events; AzureWebJobsStorage__
// tableServiceUri below). The storage zones follow the cloud (environment().suffixes.storage); the
// Cosmos DB and Key Vault ones are the public cloud's (Microsoft Learn, "Azure Private Endpoint
// private DNS zone values", https://learn.microsoft.com/azure/private-link/private-endpoint-dns).
module network 'core/network/vnet.bicep' = if (privateNetworking) {
  name: 'network'
  scope: rg
  params: {
    name: 'vnet-${resourceToken}'
    location: location
    tags: tags
  }
}

module privateEndpointBlob 'core/network/private-endpoint.bicep' = if (privateNetworking) {
  name: 'privateEndpointBlob'
  scope: rg
  params: {
    name: 'pe-st${resourceToken}-blob'
    location: location
    tags: tags
    subnetId: network!.outputs.privateEndpointSubnetId
    virtualNetworkId: network!.outputs.id
    privateLinkServiceId: storage.outputs.id
    groupId: 'blob'
    privateDnsZoneName: 'privatelink.blob.${environment().suffixes.storage}'
  }
}

module privateEndpointQueue 'core/network/private-endpoint.bicep' = if (privateNetworking) {
  name: 'privateEndpointQueue'
  scope: rg
  params: {
    name: 'pe-st${resourceToken}-queue'
    location: location
    tags: tags
    subnetId: network!.outputs.privateEndpointSubnetId
    virtualNetworkId: network!.outputs.id
    privateLinkServiceId: storage.outputs.id
    groupId: 'queue'
    privateDnsZoneName: 'privatelink.queue.${environment().suffixes.storage}'
  }
}

module privateEndpointTable 'core/network/private-endpoint.bicep' = if (privateNetworking) {
  name: 'privateEndpointTable'
  scope: rg
  params: {
    name: 'pe-st${resourceToken}-table'
    location: location
    tags: tags
    subnetId: network!.outputs.privateEndpointSubnetId
    virtualNetworkId: network!.outputs.id
    privateLinkServiceId: storage.outputs.id
    groupId: 'table'
    privateDnsZoneName: 'privatelink.table.${environment().suffixes.storage}'
  }
}

module privateEndpointCosmos 'core/network/private-endpoint.bicep' = if (privateNetworking) {
  name: 'privateEndpointCosmos'
  scope: rg
  params: {
    name: 'pe-${cosmos.outputs.name}-sql'
    location: location
    tags: tags
    subnetId: network!.outputs.privateEndpointSubnetId
    virtualNetworkId: network!.outputs.id
    privateLinkServiceId: cosmos.outputs.id
    groupId: 'Sql'
    privateDnsZoneName: 'privatelink.documents.azure.com'
  }
}

module privateEndpointKeyVault 'core/network/private-endpoint.bicep' = if (privateNetworking) {
  name: 'privateEndpointKeyVault'
  scope: rg
  params: {
    name: 'pe-kv-${resourceToken}-vault'
    location: location
    tags: tags
    subnetId: network!.outputs.privateEndpointSubnetId
    virtualNetworkId: network!.outputs.id
    privateLinkServiceId: keyVault.outputs.id
    groupId: 'vault'
    privateDnsZoneName: 'privatelink.vaultcore.azure.net'
  }
}

// The user-assigned identities of endpointIdentityIds, trimmed, without empties and repeats (union),
// checked: each must be a user-assigned identity's resource id, and none the runtime identity
// (compared ignoring case, as ARM ids are). fail() stops the deployment with the message.
var endpointIdentityIdCandidates = union(
  filter(map(split(endpointIdentityIds, ','), id => trim(id)), id => !empty(id)),
  []
)
var endpointIdentityIdsNotUserAssigned = filter(
  endpointIdentityIdCandidates,
  id => !contains(toLower(id), '/providers/microsoft.managedidentity/userassignedidentities/')
)
var endpointIdentityIdList = !empty(endpointIdentityIdsNotUserAssigned)
  ? fail('endpointIdentityIds (ENDPOINT_IDENTITY_IDS) holds ids that are not user-assigned identities: ${join(endpointIdentityIdsNotUserAssigned, ', ')}')
  : contains(map(endpointIdentityIdCandidates, id => toLower(id)), toLower(identity.outputs.id))
      ? fail('endpointIdentityIds (ENDPOINT_IDENTITY_IDS) names the app\'s runtime identity ${identity.outputs.name}, which holds the roles on this deployment\'s own storage, Cosmos DB and Key Vault: an endpoint must never be able to use it. Remove it from the list.')
      : endpointIdentityIdCandidates

// The API's app registration: made here (Microsoft Graph Bicep extension) unless authClientId names
// an existing one. Tenant objects, not Azure resources: `azd down` leaves the registration in place,
// and the next provision of the same environment finds it again by its uniqueName.
module appRegistration 'core/security/app-registration.bicep' = if (empty(authClientId)) {
  name: 'appRegistration'
  scope: rg
  params: {
    uniqueName: 'twin-resource-service-${resourceToken}'
    displayName: 'Twin resource service (${environmentName})'
  }
}

var authAppClientId = empty(authClientId) ? appRegistration!.outputs.appId : authClientId

// The audiences a token may carry: the client id (v2 tokens) and the App ID URI (v1 tokens asked for
// by that URI), and a custom App ID URI of an existing registration.
var authAudiences = concat([authAppClientId, 'api://${authAppClientId}'], empty(authAppIdUri) ? [] : [authAppIdUri])

// The settings src/config.ts reads in Azure: exactly its settings less LOCAL_ONLY_SETTINGS and the
// host storage settings (below), one per line (test/unit/infra-settings.test.ts reads this object).
var serviceSettings = {
  COSMOS_ENDPOINT: cosmos.outputs.endpoint
  COSMOS_DATABASE: cosmosDatabaseName
  COSMOS_REQUEST_TIMEOUT_MS: string(cosmosRequestTimeoutMs)
  AUTH_PROFILE_CONTENT_MAX_BYTES: string(authProfileContentMaxBytes)
  AUTH_PROFILE_MAX_COUNT: string(authProfileMaxCount)
  ENDPOINTS_PER_INSTANCE_MAX: string(endpointsPerInstanceMax)
  ROUTES_PER_INSTANCE_MAX: string(routesPerInstanceMax)
  SECRETS_ENCRYPTION_KEY: '@Microsoft.KeyVault(SecretUri=${keyVault.outputs.encryptionKeySecretUri})'
  TWIN_EVENTS_QUEUE: twinEventsQueueName
  INGEST_LINGER_MS: string(ingestLingerMs)
  DELIVERY_MAX_ATTEMPTS: string(deliveryMaxAttempts)
  DELIVERY_TTL_SECONDS: string(deliveryTtlSeconds)
  DELIVERY_BACKOFF_BASE_SECONDS: string(deliveryBackoffBaseSeconds)
  DELIVERY_BACKOFF_CAP_SECONDS: string(deliveryBackoffCapSeconds)
  DELIVERY_SEND_TIMEOUT_MS: string(deliverySendTimeoutMs)
  IDENTITY_TOKEN_TIMEOUT_MS: string(identityTokenTimeoutMs)
  ENDPOINT_CACHE_SECONDS: string(endpointCacheSeconds)
  SERVICEBUS_HOST_SUFFIXES: serviceBusHostSuffixes
  STORAGE_HOST_SUFFIXES: storageHostSuffixes
  PUBLIC_BASE_URL: publicBaseUrl
  AUTH_MODE: 'entra'
  AUTH_AUTHORITY: '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
  AUTH_AUDIENCE: join(authAudiences, ',')
  AUTH_ALLOWED_TENANTS: tenant().tenantId
  AUTH_ADMIN_PRINCIPALS: !empty(authAdminPrincipals) ? authAdminPrincipals : principalId
  AUTH_CACHE_SECONDS: string(authCacheSeconds)
  ENDPOINT_USER_ASSIGNED_IDENTITIES: join(endpointIdentityIdList, ',')
}

// The Functions host's and the platform's own settings. Each one the code does not read is on the
// allow-list of test/unit/infra-settings.test.ts, with the reason.
// - AzureWebJobsStorage__{blob,queue,table}ServiceUri: the host's storage (blob: keys, leases;
//   queue: the trigger; table: diagnostic events) and the service's queue client
//   (src/store/queue-service.ts) reach the account at the endpoints it reports, right in every
//   cloud, as the official Flex Consumption templates set them. No __accountName: from a name the
//   host makes public-cloud URIs (.core.windows.net), and some of its storage clients take the name
//   over a URI when both are set. __credential and __clientId name the user-assigned identity
//   (without them the host would use the system-assigned identity, which is for endpoints and has
//   no role).
// - AZURE_CLIENT_ID: the code's DefaultAzureCredential (src/store/credentials.ts: Cosmos DB and the
//   queue client) takes its managed identity's client id from it.
// - APPLICATIONINSIGHTS_AUTHENTICATION_STRING: the host sends telemetry with an Entra ID token of
//   this identity, as Application Insights takes no key-based ingestion (local auth off).
var platformSettings = {
  AzureWebJobsStorage__blobServiceUri: storage.outputs.blobEndpoint
  AzureWebJobsStorage__queueServiceUri: storage.outputs.queueEndpoint
  AzureWebJobsStorage__tableServiceUri: storage.outputs.tableEndpoint
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identity.outputs.clientId
  AZURE_CLIENT_ID: identity.outputs.clientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: monitoring.outputs.applicationInsightsConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identity.outputs.clientId};Authorization=AAD'
}

module api 'app/api.bicep' = {
  name: 'api'
  scope: rg
  params: {
    name: functionAppName
    planName: 'plan-${resourceToken}'
    location: location
    tags: tags
    serviceName: 'api'
    storageBlobEndpoint: storage.outputs.blobEndpoint
    deploymentContainerName: storage.outputs.deploymentContainerName
    appSettings: union(platformSettings, serviceSettings)
    identityId: identity.outputs.id
    endpointIdentityIds: endpointIdentityIdList
    instanceMemoryMB: instanceMemoryMB
    httpPerInstanceConcurrency: httpPerInstanceConcurrency
    maximumInstanceCount: maximumInstanceCount
    enableEasyAuth: enableEasyAuth
    authClientId: authAppClientId
    authIssuer: serviceSettings.AUTH_AUTHORITY
    authAudiences: authAudiences
    virtualNetworkSubnetId: privateNetworking ? network!.outputs.appSubnetId : ''
  }
  // The site reads its settings as it starts: the Key Vault reference (Key Vault Secrets User), the
  // telemetry (Monitoring Metrics Publisher), storage and Cosmos DB. Every role is assigned first,
  // and with privateNetworking every private endpoint and its DNS record exists first (a
  // dependency on a module that is not deployed is dropped).
  dependsOn: [
    access
    privateEndpointBlob
    privateEndpointQueue
    privateEndpointTable
    privateEndpointCosmos
    privateEndpointKeyVault
  ]
}

// The roles of the app's identity (and of the operator), assigned before the app is created.
module access 'app/access.bicep' = {
  name: 'access'
  scope: rg
  params: {
    appPrincipalId: identity.outputs.principalId
    operatorPrincipalId: principalId
    operatorTeamPrincipalIds: split(operatorPrincipalIds, ',')
    operatorTeamQueueNames: [
      twinEventsQueueName
      '${twinEventsQueueName}-poison'
    ]
    storageAccountName: storage.outputs.name
    keyVaultName: keyVault.outputs.name
    cosmosAccountName: cosmos.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

module alerts 'core/monitor/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    namePrefix: resourceToken
    poisonQueueName: '${twinEventsQueueName}-poison'
    alertEmailAddress: alertEmailAddress
    healthUrl: 'https://${api.outputs.defaultHostName}/health'
  }
}

// azd stores these in .azure/<environment>/.env; infra/README.md uses them.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = api.outputs.name
output AZURE_FUNCTION_APP_IDENTITY_NAME string = identity.outputs.name
output SERVICE_API_NAME string = api.outputs.name
output SERVICE_API_URI string = 'https://${api.outputs.defaultHostName}'
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output AZURE_COSMOS_ACCOUNT_NAME string = cosmos.outputs.name
output AZURE_COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.applicationInsightsName
output TWIN_EVENTS_QUEUE string = twinEventsQueueName
// The registration callers ask tokens for (`az account get-access-token --resource <it>`). Not named
// AUTH_CLIENT_ID: azd would feed its own output back as authClientId, and stop managing the
// registration it made.
output SERVICE_API_CLIENT_ID string = authAppClientId
output SERVICE_API_AUTHORITY string = serviceSettings.AUTH_AUTHORITY
// The app's system-assigned identity, which identity-based endpoints without `identity` use: the
// principal endpoint owners grant Azure Service Bus Data Sender (and Storage Blob Data Contributor)
// to (docs/operations.md, "Identity-based endpoints: who grants what"). No role is granted here.
output ENDPOINT_SYSTEM_IDENTITY_PRINCIPAL_ID string = api.outputs.systemIdentityPrincipalId
// What ENDPOINT_USER_ASSIGNED_IDENTITIES holds: the user-assigned identities endpoints may name.
output ENDPOINT_USER_ASSIGNED_IDENTITIES string = join(endpointIdentityIdList, ',')
// privateNetworking: where endpoint owners put the private endpoints of their Service Bus namespaces
// (infra/README.md, "Private networking"); empty when off.
output AZURE_PRIVATE_ENDPOINT_SUBNET_ID string = privateNetworking ? network!.outputs.privateEndpointSubnetId : ''
output AZURE_VIRTUAL_NETWORK_ID string = privateNetworking ? network!.outputs.id : ''
