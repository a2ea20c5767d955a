/** How global setup tells the test workers where the shared stand-ins listen. */
export const STAND_INS_ENV = "TEST_STAND_INS";

/** The local keys of every test host. */
export const FUNCTION_KEY = "test-function-key";
export const MASTER_KEY = "test-master-key";

export interface SharedStandIns {
  cosmosEndpoint: string;
  storageConnectionString: string;
  /** Azurite's HTTPS blob service with OAuth (`https://localhost:{port}/devstoreaccount1`). */
  blobTlsEndpoint: string;
  /** The local TLS certificate the workers trust (NODE_EXTRA_CA_CERTS). */
  certFile: string;
}

export function sharedStandIns(): SharedStandIns {
  const value = process.env[STAND_INS_ENV];
  if (!value)
    throw new Error(
      `${STAND_INS_ENV} is not set: run the tests through jest (globalSetup starts the stand-ins)`,
    );
  return JSON.parse(value) as SharedStandIns;
}
