import type { Container } from "@azure/cosmos";
import { InvalidRequestContent, ResourceNotFound } from "../common/errors";
import { nameKey, sameName } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import type { Preconditions } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import {
  type Actor,
  checkEchoedSystemData,
  legacySystemData,
  type SystemData,
  stampSystemData,
} from "../common/system-data";
import type { Versioned } from "../common/versioned";
import { type SealedBox, type SecretBox, SecretsUnreadable } from "../secrets/secret-box";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import { DocumentStore, type Stored } from "../store/document-store";
import { type OnlyIds, onlyIds } from "../store/only-ids";
import { LEDGER_ID, QuotaLedger, type QuotaScope } from "../store/quota-ledger";
import { deadLetterSecretProblems, type EndpointAllowList } from "./endpoint-allow-list";
import {
  type EndpointPath,
  endpointId,
  type InstancePath,
  instanceKey,
  twinsInstanceId,
} from "./endpoint-path";
import {
  type EndpointPatch,
  type EndpointPut,
  type EndpointSecrets,
  endpointSecretsSchema,
  type QueueEndpoint,
} from "./endpoint-schema";
import {
  type EndpointSecretsToCheck,
  type MaskedSecrets,
  maskedSecrets,
  maskedStoredSecrets,
  type ParsedEndpointSecrets,
  parseEndpointSecrets,
  secretTexts,
} from "./endpoint-secrets";

/**
 * The stored form. Partitioned by the instance (lower-cased id), so one instance's endpoints are
 * one partition: the delivery lookup is a single-partition query. No plaintext secret is stored.
 */
export interface EndpointDocument {
  id: string;
  instanceKey: string;
  name: string;
  twinsInstanceId: string;
  /** The topic (EntityPath): not a secret, kept in clear for operators. */
  topic: string;
  secrets: SealedBox;
  createdAt: string;
  updatedAt: string;
  /** Absent on endpoints written before systemData was recorded. */
  systemData?: SystemData;
}

function currentSystemData(document: EndpointDocument): SystemData {
  return document.systemData ?? legacySystemData(document);
}

/**
 * An endpoint with its secrets opened: for delivery, never for a response. When this deployment
 * cannot open them (sealed under a key it lacks, or altered), `secrets` is absent and
 * `secretsUnreadable` says why: that endpoint's deliveries fail, the instance's others go ahead.
 */
export type DeliveryEndpoint = {
  id: string;
  name: string;
  topic: string;
  /** The stored document's ETag: which settings these are (delivery-message.ts, endpoint-cache.ts). */
  version?: string;
} & ({ secrets: EndpointSecrets } | { secrets?: undefined; secretsUnreadable: string });

/** How an endpoint whose secrets cannot be opened shows them. */
const MASKED = "***";

function addressOf(path: EndpointPath): DocumentAddress {
  return { id: nameKey(path.endpointName), partitionKey: instanceKey(path) };
}

/** Where the secrets' ciphertext is bound: it opens only in this document. */
function sealingContext(document: Pick<EndpointDocument, "instanceKey" | "id">): string {
  return `${document.instanceKey}/endpoints/${document.id}`;
}

export class EndpointService
  implements ResourceService<InstancePath, EndpointPath, QueueEndpoint, EndpointPut, EndpointPatch>
{
  private readonly documents: DocumentStore<EndpointDocument>;
  private readonly writer: ConditionalWriter<EndpointDocument>;
  readonly ledger: QuotaLedger<EndpointDocument>;

  constructor(
    container: Container,
    /** Seals and opens; while the key is pending (src/secrets/secret-keys.ts) both answer 503. */
    private readonly secretBox: Pick<SecretBox, "seal" | "open">,
    private readonly maxPerInstance: number,
    private readonly allowList: EndpointAllowList,
    private readonly warn: (message: string) => void = (message) => console.warn(message),
  ) {
    this.documents = new DocumentStore<EndpointDocument>(container, (document) => document.instanceKey);
    this.ledger = new QuotaLedger(this.documents, "instanceKey");
    this.writer = new ConditionalWriter(this.documents, "endpoint", {
      ledger: this.ledger,
      scopeOf: ({ partitionKey }) => this.quotaScope(partitionKey),
    });
  }

  async get(path: EndpointPath): Promise<Versioned<QueueEndpoint>> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return this.toResource(document, maskedStoredSecrets(this.openSecrets(document)));
  }

  async list(path: InstancePath, page: PageRequest, only?: readonly string[]): Promise<Page<QueueEndpoint>> {
    const ids = onlyIds(only, (endpointName) => addressOf({ ...path, endpointName }).id);
    const result = await this.documents.queryPage(this.instanceQuery(path, "SELECT * FROM c", ids), page);
    return mapPage(result, (document) => this.toListItem(document));
  }

  /** Every endpoint of an instance with its secrets opened, for delivery: one partition, one query. */
  async listForDelivery(path: InstancePath): Promise<DeliveryEndpoint[]> {
    const documents = await this.documents.queryAll<Stored<EndpointDocument>>(
      this.instanceQuery(path, "SELECT * FROM c"),
    );
    return documents.map((document) => this.forDelivery(document));
  }

  /** One endpoint with its secrets opened, for dead-letter redelivery (never for a response); 404 when absent. */
  async getForDelivery(path: EndpointPath): Promise<DeliveryEndpoint> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return this.forDelivery(document);
  }

  async put(
    path: EndpointPath,
    body: EndpointPut,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<{ versioned: Versioned<QueueEndpoint>; created: boolean }> {
    this.checkEchoedFields(path, body);
    const secrets = parseEndpointSecrets(
      {
        queuePrimaryConnectionString: body.queuePrimaryConnectionString,
        queueSecondaryConnectionString: body.queueSecondaryConnectionString,
        ...(body.deadLetterStorageSecret !== undefined && {
          deadLetterStorageSecret: body.deadLetterStorageSecret,
        }),
      },
      this.allowList,
    );
    const now = new Date().toISOString();
    const { document, created } = await this.writer.put(
      addressOf(path),
      preconditions,
      (existing, address) => {
        checkEchoedSystemData(body.systemData, existing && currentSystemData(existing));
        const base = existing ?? {
          id: address.id,
          instanceKey: address.partitionKey,
          name: path.endpointName,
          twinsInstanceId: twinsInstanceId(path),
          createdAt: now,
        };
        const systemData = stampSystemData(existing && currentSystemData(existing), actor, now);
        return this.sealed(base, secrets, now, systemData);
      },
    );
    return { versioned: this.toResource(document, maskedSecrets(secrets)), created };
  }

  async patch(
    path: EndpointPath,
    body: EndpointPatch,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<Versioned<QueueEndpoint>> {
    this.checkEchoedFields(path, body);
    // What the response shows: the masks of the secrets the written document was sealed from.
    let shown: MaskedSecrets | undefined;
    const document = await this.writer.patch(
      addressOf(path),
      preconditions,
      (existing) => {
        checkEchoedSystemData(body.systemData, currentSystemData(existing));
        const current = this.openSecrets(existing);
        const merged: EndpointSecretsToCheck = {
          queuePrimaryConnectionString:
            body.queuePrimaryConnectionString ?? current.queuePrimaryConnectionString,
          queueSecondaryConnectionString:
            body.queueSecondaryConnectionString ?? current.queueSecondaryConnectionString,
        };
        const deadLetter =
          body.deadLetterStorageSecret === undefined
            ? current.deadLetterStorageSecret
            : body.deadLetterStorageSecret;
        if (deadLetter !== null && deadLetter !== undefined) merged.deadLetterStorageSecret = deadLetter;
        const secrets = parseEndpointSecrets(merged, this.allowList);
        shown = maskedSecrets(secrets);
        const now = new Date().toISOString();
        return this.sealed(existing, secrets, now, stampSystemData(currentSystemData(existing), actor, now));
      },
      () => notFound(path),
    );
    return this.toResource(document, shown ?? maskedStoredSecrets(this.openSecrets(document)));
  }

  delete(path: EndpointPath, preconditions: Preconditions): Promise<boolean> {
    return this.writer.delete(addressOf(path), preconditions);
  }

  private sealed(
    base: Pick<EndpointDocument, "id" | "instanceKey" | "name" | "twinsInstanceId" | "createdAt">,
    secrets: ParsedEndpointSecrets,
    now: string,
    systemData: SystemData,
  ): EndpointDocument {
    return {
      id: base.id,
      instanceKey: base.instanceKey,
      name: base.name,
      twinsInstanceId: base.twinsInstanceId,
      topic: secrets.queuePrimaryConnectionString.parts.entityPath,
      secrets: this.secretBox.seal(JSON.stringify(secretTexts(secrets)), sealingContext(base)),
      createdAt: base.createdAt,
      updatedAt: now,
      systemData,
    };
  }

  private openSecrets(document: EndpointDocument): EndpointSecrets {
    return endpointSecretsSchema.parse(
      JSON.parse(this.secretBox.open(document.secrets, sealingContext(document))),
    );
  }

  private toResource(document: Stored<EndpointDocument>, masked: MaskedSecrets): Versioned<QueueEndpoint> {
    return {
      resource: {
        id: endpointId(document.twinsInstanceId, document.name),
        name: document.name,
        twinsInstanceId: document.twinsInstanceId,
        queuePrimaryConnectionString: masked.queuePrimaryConnectionString,
        queueSecondaryConnectionString: masked.queueSecondaryConnectionString,
        ...(masked.deadLetterStorageSecret !== undefined && {
          deadLetterStorageSecret: masked.deadLetterStorageSecret,
        }),
        systemData: currentSystemData(document),
      },
      etag: document._etag,
    };
  }

  /** One document this deployment cannot open must not hide the others: it is listed fully masked. */
  private toListItem(document: Stored<EndpointDocument>): QueueEndpoint {
    try {
      return this.toResource(document, maskedStoredSecrets(this.openSecrets(document))).resource;
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      const id = endpointId(document.twinsInstanceId, document.name);
      this.warn(`endpoint ${id} is listed with its secrets masked: SecretsUnreadable: ${error.message}`);
      return {
        id,
        name: document.name,
        twinsInstanceId: document.twinsInstanceId,
        queuePrimaryConnectionString: MASKED,
        queueSecondaryConnectionString: MASKED,
        systemData: currentSystemData(document),
      };
    }
  }

  /**
   * Delivery re-checks the allow-list: a document stored before it (or under a wider one) must
   * not make the service send where it no longer may. The sender pool refuses such connection
   * strings; a refused dead-letter URL is left out, so what cannot be delivered is poisoned.
   * Secrets this deployment cannot open hold up that endpoint alone: it comes without them.
   */
  private forDelivery(document: Stored<EndpointDocument>): DeliveryEndpoint {
    const id = endpointId(document.twinsInstanceId, document.name);
    let opened: EndpointSecrets;
    try {
      opened = this.openSecrets(document);
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      this.warn(
        `endpoint ${id}: its secrets cannot be opened (SecretsUnreadable: ${error.message}); events for it fail, and go to the poison queue once their retries run out`,
      );
      return {
        id,
        name: document.name,
        topic: document.topic,
        version: document._etag,
        secretsUnreadable: error.message,
      };
    }
    const { deadLetterStorageSecret, ...connections } = opened;
    const deadLetterAdmitted =
      deadLetterStorageSecret !== undefined &&
      deadLetterSecretProblems(deadLetterStorageSecret, this.allowList).length === 0;
    if (deadLetterStorageSecret !== undefined && !deadLetterAdmitted) {
      this.warn(
        `endpoint ${id}: its deadLetterStorageSecret points where STORAGE_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS do not admit; it is not used, and events it would take go to the poison queue`,
      );
    }
    return {
      id,
      name: document.name,
      topic: document.topic,
      version: document._etag,
      secrets: deadLetterAdmitted ? { ...connections, deadLetterStorageSecret } : connections,
    };
  }

  private instanceQuery(path: InstancePath, select: string, ids: OnlyIds = onlyIds(undefined)) {
    // The partition key is filtered in the query text too: the local Cosmos server ignores the option.
    return {
      query: `${select} WHERE c.instanceKey = @instanceKey AND c.id != @ledger${ids.clause} ORDER BY c.id`,
      parameters: [
        { name: "@instanceKey", value: instanceKey(path) },
        { name: "@ledger", value: LEDGER_ID },
        ...ids.parameters,
      ],
    };
  }

  /** The instance's endpoints are counted in the instance's partition. */
  quotaScope(instancePartition: string): QuotaScope {
    return {
      partitionKey: instancePartition,
      limit: this.maxPerInstance,
      noun: "endpoints of this digital twins instance",
      setting: "ENDPOINTS_PER_INSTANCE_MAX",
    };
  }

  /** `id`, `name` and `twinsInstanceId` are read-only echoes of the path. */
  private checkEchoedFields(path: EndpointPath, body: EndpointPatch): void {
    if (body.twinsInstanceId !== undefined && !sameName(body.twinsInstanceId, twinsInstanceId(path))) {
      throw new InvalidRequestContent(
        "twinsInstanceId must equal the instance in the path; moving an endpoint replaces it.",
        "twinsInstanceId",
      );
    }
    if (body.name !== undefined && !sameName(body.name, path.endpointName)) {
      throw new InvalidRequestContent(
        "name must equal the name in the path; renaming an endpoint replaces it.",
        "name",
      );
    }
    if (body.id !== undefined && !sameName(body.id, endpointId(twinsInstanceId(path), path.endpointName))) {
      throw new InvalidRequestContent("id is read-only: send it only with its current value.", "id");
    }
  }
}

function notFound(path: EndpointPath): ResourceNotFound {
  return new ResourceNotFound(
    `The endpoint '${path.endpointName}' of the digital twins instance '${path.instanceName}' was not found.`,
  );
}
