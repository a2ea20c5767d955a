// The API side of the service's app registration (app-registration.bicep, passes 2 and 3): its App ID
// URI, the access token version and the delegated scope user tokens carry. A module of its own
// because the App ID URI names the registration's appId, known only once pass 1 has created it.
extension microsoftGraphV1

@description('uniqueName of the registration app-registration.bicep created.')
param uniqueName string

@description('Display name of the registration (the same as pass 1, which it must not change).')
param displayName string

@description('The registration\'s appId (its client id).')
param appId string

// Pass 2 declares none, so provisioning again drops the pre-authorization for the seconds until pass
// 3 restores it: a user token asked for in that window meets a consent prompt; tokens already issued
// are unaffected.
@description('Client applications that get user tokens for the API without a consent prompt. Empty on pass 2: Microsoft Graph refuses to pre-authorize a scope created in the same request.')
param preAuthorizedClientIds array = []

// Fixed for the registration: a scope's id cannot change while the scope exists.
var userImpersonationScopeId = guid(uniqueName, 'user_impersonation')

resource registration 'Microsoft.Graph/applications@v1.0' = {
  uniqueName: uniqueName
  displayName: displayName
  signInAudience: 'AzureADMyOrg'
  identifierUris: [
    'api://${appId}'
  ]
  api: {
    // v2 access tokens whoever asks: `aud` is the client id and `iss` the v2 issuer of AUTH_AUTHORITY
    // (and of Easy Auth's openIdIssuer, app/api.bicep).
    requestedAccessTokenVersion: 2
    oauth2PermissionScopes: [
      {
        id: userImpersonationScopeId
        value: 'user_impersonation'
        type: 'User'
        isEnabled: true
        adminConsentDisplayName: 'Call the twin resource service'
        adminConsentDescription: 'Lets the app call the twin resource service as the signed-in user. What the user may do there is decided by the service\'s own role assignments.'
        userConsentDisplayName: 'Call the twin resource service'
        userConsentDescription: 'Lets the app call the twin resource service as you. What you may do there is decided by the service\'s own role assignments.'
      }
    ]
    preAuthorizedApplications: [
      for clientId in preAuthorizedClientIds: {
        appId: clientId
        delegatedPermissionIds: [
          userImpersonationScopeId
        ]
      }
    ]
  }
}

output identifierUri string = 'api://${appId}'
