// The Function App's identity: user-assigned, so that it exists, and its roles can be granted
// (app/access.bicep), before the app is created. A system-assigned identity only exists once the
// site does, so the site would start (resolve its Key Vault reference, send telemetry, open its
// storage) before any of its roles had been assigned.

param name string
param location string
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output name string = identity.name
output id string = identity.id
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
