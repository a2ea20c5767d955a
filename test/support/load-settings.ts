/**
 * The least a fresh node needs to load the built entry points (dist/functions/*.js): settings that
 * pass the start-up checks and point at nothing that must answer, for tests that look at what the
 * load itself does (modules, memory, locales).
 */
export const LOAD_SETTINGS = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  AUTH_MODE: "keys",
};
