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

// Soft delete keeps a deleted vault (and a deleted secret) recoverable for this many days; Azure
// takes 7 to 90, and the value cannot be changed once the vault exists
// (https://learn.microsoft.com/azure/key-vault/general/soft-delete-overview).
@minValue(7)
@maxValue(90)
@description('Days a deleted vault or secret stays recoverable (soft delete), 7 to 90; fixed once the vault is created.')
param softDeleteRetentionInDays int = 90

@description('privateNetworking of main.bicep: public network access off, reached through a private endpoint (group id vault) only.')
param privateNetworking bool = false

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
    // The encryption key is the one thing whose loss cannot be repaired (infra/README.md, "Keep the
    // encryption key"): soft delete keeps a deleted vault or secret for softDeleteRetentionInDays,
    // and purge protection stops anyone, an owner included, from purging it before then. Purge
    // protection cannot be turned off once on (Microsoft Learn, "Azure Key Vault soft-delete
    // overview", "Purge protection",
    // https://learn.microsoft.com/azure/key-vault/general/soft-delete-overview#purge-protection):
    // azd down --purge then cannot purge this vault, and its name stays taken until the retention
    // ends (infra/README.md, "Remove"). Set as true, never false: Azure accepts only true or unset.
    enableSoftDelete: true
    softDeleteRetentionInDays: softDeleteRetentionInDays
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    // privateNetworking: the data plane only through the private endpoint of main.bicep. The secret
    // below is still written: "Key Vault firewalls and virtual network rules only apply to the data
    // plane of Key Vault. Key Vault control plane operations (... deployment of secrets or keys
    // through ARM templates) are not affected" (Microsoft Learn, "Virtual network service endpoints
    // for Azure Key Vault",
    // https://learn.microsoft.com/azure/key-vault/general/overview-vnet-service-endpoints).
    publicNetworkAccess: privateNetworking ? 'Disabled' : 'Enabled'
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
