import { randomUUID } from "node:crypto";
import type { ContainerClient } from "@azure/storage-blob";
import { loadOrCreateLocalTls } from "../../dev/local-tls";
import { httpsBlobServiceWithKey } from "../../dev/stand-ins/azurite-https";
import {
  LOCAL_SERVICEBUS_SENDERS,
  USER_ASSIGNED_IDENTITIES,
} from "../../dev/stand-ins/managed-identity/identities";
import {
  type ManagedIdentityEndpoint,
  startManagedIdentityEndpoint,
} from "../../dev/stand-ins/managed-identity/server";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { DeliveryStack } from "./delivery-kit";

export { blobsOf } from "./delivery-kit";

import { sharedStandIns } from "./stand-ins-env";

const IDENTITY_ENV = ["IDENTITY_ENDPOINT", "IDENTITY_HEADER"] as const;

/**
 * What identity-based delivery runs against in a test, as `npm start` provides it: the
 * managed-identity stand-in (IDENTITY_ENDPOINT and IDENTITY_HEADER in this process's environment,
 * which the host processes inherit and this process's clients read, restored at stop), a Service Bus stand-in
 * taking its tokens on an AMQPS listener (the system-assigned and `endpoint-sender` identities
 * hold the sender role, `endpoint-no-role` does not), and the shared Azurite's HTTPS blob service.
 * The worker trusts the local certificate through NODE_EXTRA_CA_CERTS (global-setup.ts).
 */
export class IdentityDelivery {
  private constructor(
    readonly identity: ManagedIdentityEndpoint,
    readonly stack: DeliveryStack,
    private readonly savedEnv: Partial<Record<(typeof IDENTITY_ENV)[number], string>>,
  ) {}

  static async start(settings: Record<string, string> = {}, hostCount = 1): Promise<IdentityDelivery> {
    const tls = await loadOrCreateLocalTls();
    const identity = await startManagedIdentityEndpoint({ port: 0 });
    const savedEnv = Object.fromEntries(IDENTITY_ENV.map((name) => [name, process.env[name]]));
    process.env.IDENTITY_ENDPOINT = identity.endpoint;
    process.env.IDENTITY_HEADER = identity.header;
    const serviceBus: RunningServiceBus = await startServiceBusStandIn({
      port: 0,
      tls: { cert: tls.cert, key: tls.key, port: 0 },
      tokens: { jwksUri: identity.jwksUri, senders: LOCAL_SERVICEBUS_SENDERS },
    });
    const stack = await DeliveryStack.startOn(
      serviceBus,
      {
        ENDPOINT_USER_ASSIGNED_IDENTITIES: USER_ASSIGNED_IDENTITIES.map(({ resourceId }) => resourceId).join(
          ",",
        ),
        ...settings,
      },
      hostCount,
    );
    return new IdentityDelivery(identity, stack, savedEnv);
  }

  /** What an IdentityBased endpoint's `endpointUri` names: the AMQPS listener, by the certificate's name. */
  get endpointUri(): string {
    return `sb://localhost:${this.stack.serviceBus.tlsPort}/`;
  }

  /** A new container on the HTTPS blob service; its `deadLetterUri` (no SAS) and a client with the account key. */
  async deadLetterContainer(): Promise<{ url: string; container: ContainerClient }> {
    const { blobTlsEndpoint, certFile } = sharedStandIns();
    const name = `dead-${randomUUID().slice(0, 8)}`;
    const container = httpsBlobServiceWithKey(blobTlsEndpoint, certFile).getContainerClient(name);
    await container.create();
    return { url: `${blobTlsEndpoint}/${name}`, container };
  }

  async stop(): Promise<void> {
    await this.stack.stop();
    await this.identity.close();
    for (const name of IDENTITY_ENV) {
      const saved = this.savedEnv[name];
      if (saved === undefined) delete process.env[name];
      else process.env[name] = saved;
    }
  }
}
