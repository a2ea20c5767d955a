// The service's Entra ID app registration (the API callers ask tokens for) and its service principal,
// made with the Microsoft Graph Bicep extension when main.bicep is given no authClientId.
//
// Why three passes over one registration: its App ID URI is api://<appId>, the one form every tenant
// accepts (a tenant may refuse any other identifier URI), and the appId exists only once the
// registration does; and Microsoft Graph refuses to pre-authorize a client for a scope created in the
// same request. So: (1) this file creates the bare registration, (2) app-registration-api.bicep adds
// the App ID URI and the user_impersonation scope, (3) the same file again pre-authorizes the Azure
// CLI for that scope. Each pass declares the registration by its uniqueName, which the extension
// creates or updates in place, so provisioning again converges to the same registration.
//
// No app roles: the service authorizes each request by its own role assignments, held in Cosmos DB at
// scopes such as one twins instance (docs/operations.md, "Callers"), and ignores a token's `roles`
// claim. An app role is tenant-wide with no scope, so mirroring Owner, Reader or Twin Events Sender
// here would grant nothing and would mislead whoever assigned it.
extension microsoftGraphV1

@description('Alternate key of the registration: the same name finds the same registration on every provision. Immutable, and held for 30 days after a deletion.')
param uniqueName string

@description('Display name of the registration in the tenant.')
param displayName string

// Microsoft Azure CLI, a first-party client: pre-authorized so that `az account get-access-token`
// gets a user token for the API without a consent prompt (docs/operations.md, "Callers").
var azureCliClientId = '04b07795-8ddb-461a-bbee-02f9e1bf7b46'

// Pass 1: the registration itself, for its appId. Only properties the later passes also declare, so
// that provisioning again changes nothing here.
resource registration 'Microsoft.Graph/applications@v1.0' = {
  uniqueName: uniqueName
  displayName: displayName
  signInAudience: 'AzureADMyOrg'
}

// Tokens are only issued for an application that has a service principal in the tenant.
resource servicePrincipal 'Microsoft.Graph/servicePrincipals@v1.0' = {
  appId: registration.appId
}

// Pass 2: the App ID URI and the delegated scope.
module exposedApi 'app-registration-api.bicep' = {
  name: '${deployment().name}-api'
  params: {
    uniqueName: uniqueName
    displayName: displayName
    appId: registration.appId
    preAuthorizedClientIds: []
  }
}

// Pass 3: the same, with the Azure CLI pre-authorized for the scope pass 2 made.
module preAuthorizedClients 'app-registration-api.bicep' = {
  name: '${deployment().name}-clients'
  params: {
    uniqueName: uniqueName
    displayName: displayName
    appId: registration.appId
    preAuthorizedClientIds: [
      azureCliClientId
    ]
  }
  dependsOn: [
    exposedApi
  ]
}

output appId string = registration.appId
output identifierUri string = preAuthorizedClients.outputs.identifierUri
output servicePrincipalId string = servicePrincipal.id
