// Key Vault with Azure RBAC authorization, holding the key that seals endpoint secrets at rest.
// The app reads it through a Key Vault reference in its app settings, so the key never appears in
// the site configuration or the deployment history.

param name string
param location string
param tags object = {}

@description('Name of the secret that holds SECRETS_ENCRYPTION_KEY.')
param encryptionKeySecretName string

@secure()
@description('SECRETS_ENCRYPTION_KEY: 32 random bytes in base64.')
param encryptionKey string

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    // Role assignments, not access policies, decide who reads what (app/access.bicep).
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    publicNetworkAccess: 'Enabled'
  }
}

// Written through ARM (control plane): the deploying identity needs no data-plane role for this.
resource encryptionKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: encryptionKeySecretName
  properties: {
    value: encryptionKey
    contentType: 'base64, 32 bytes (AES-256-GCM key)'
  }
}

output name string = vault.name
output id string = vault.id
// Versionless on purpose: the app picks up a new secret version within 24 hours, or at once on its
// next configuration change (App Service then refetches every referenced secret); the key-rotation
// steps in infra/README.md rely on that.
output encryptionKeySecretUri string = encryptionKeySecret.properties.secretUri
