import type { Container } from "@azure/cosmos";
import { InvalidRequestContent, PreconditionFailed, ResourceNotFound } from "../common/errors";
import { nameKey, sameName } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import type { Preconditions } from "../common/preconditions";
import type { LinkedAccess, ResourceService } from "../common/resource-service";
import { type Actor, checkEchoedSystemData, type SystemData, stampSystemData } from "../common/system-data";
import type { Versioned } from "../common/versioned";
import { type SecretBox, SecretsUnreadable } from "../secrets/secret-box";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import { DocumentStore, type Stored } from "../store/document-store";
import { type OnlyIds, onlyIds } from "../store/only-ids";
import { QuotaLedger, type QuotaScope } from "../store/quota-ledger";
import type { DeliveryEndpoint } from "./delivery-endpoint";
import { deadLetterSecretProblems } from "./endpoint-allow-list";
import {
  currentSystemData,
  type DocumentBase,
  type EndpointDocument,
  identityDocument,
  identityResource,
  identitySettingsOf,
  isKeyed,
  type KeyedDocument,
  kindOf,
  mergeIdentitySettings,
  writtenDocument,
} from "./endpoint-document";
import { checkPatchKind, refuseKindChange } from "./endpoint-kinds";
import {
  type EndpointPath,
  EVENT_ROUTE_READ_ACTION,
  endpointId,
  eventRouteId,
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
import {
  type IdentityRules,
  namespaceOf,
  parseIdentitySettings,
  readIdentitySettings,
} from "./identity-endpoint";
import {
  ENDPOINTS_AND_ROUTES,
  ENDPOINTS_ONLY,
  isRouteDocument,
  noRouteNames,
  type RoutedDocument,
  routeLedger,
} from "./instance-partition";

export type { DeliveryEndpoint } from "./delivery-endpoint";
export type { EndpointDocument } from "./endpoint-document";

/** An event route as delivery reads it, beside its instance's endpoints. */
export interface DeliveryRoute {
  name: string;
  endpointName: string;
  filter: string;
}

/** An instance's endpoints and event routes, as one query of its partition reads them. */
export interface InstanceDelivery {
  endpoints: DeliveryEndpoint[];
  routes: DeliveryRoute[];
}

/** An endpoint left on a key other than the current one, as the re-seal reports it: no secret. */
export interface LeftOnOldKey {
  id: string;
  keyId: string;
  /**
   * Why it is left: `KeyMissing`, sealed under a key this deployment lacks (configure it in
   * SECRETS_ENCRYPTION_PREVIOUS_KEYS, or have the owner PUT the endpoint again); `Altered`, the
   * stored box fails authentication (the owner must PUT it again); `RunAgain`, it opens but was
   * (re)written under an old key while the call ran, by a host still sealing with it; `DryRun`.
   */
  reason: "KeyMissing" | "Altered" | "RunAgain" | "DryRun";
}

/** What a re-seal did and what it left (src/http/routes/secrets-routes.ts). Counts and ids only. */
export interface ResealReport {
  currentKeyId: string;
  /** Endpoints in the store when the call started (quota ledgers aside). */
  scanned: number;
  /** Re-sealed under the current key by this call. */
  resealed: number;
  /** Already under the current key when read. */
  alreadyCurrent: number;
  /** Written while the call ran (by a user, or re-sealed by another call): found under the current key when read again. */
  writtenMeanwhile: number;
  /** Deleted while the call ran. */
  deleted: number;
  /** Read again at the end: endpoints still sealed under another key, per key fingerprint. */
  remaining: Record<string, number>;
  /** Those endpoints (ids and fingerprints), at most RESEAL_LISTED of them. */
  remainingEndpoints: LeftOnOldKey[];
}

/** How many of the endpoints left on old keys a report names (all are counted). */
export const RESEAL_LISTED = 1000;

/** Rounds one endpoint's re-seal may lose to concurrent writes before the call gives up on it. */
const RESEAL_ATTEMPTS = 20;

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
  private readonly routes: QuotaLedger<RoutedDocument>;

  constructor(
    container: Container,
    /** Seals and opens; while the key is pending (src/secrets/secret-keys.ts) both answer 503. */
    private readonly secretBox: Pick<SecretBox, "seal" | "open" | "currentKeyId">,
    private readonly maxPerInstance: number,
    /** Where endpoints may point, and the identities they may name. */
    private readonly rules: IdentityRules,
    private readonly warn: (message: string) => void = (message) => console.warn(message),
  ) {
    this.documents = new DocumentStore<EndpointDocument>(container, (document) => document.instanceKey);
    this.ledger = new QuotaLedger(this.documents, "instanceKey", { counted: ENDPOINTS_ONLY });
    this.routes = routeLedger(this.documents);
    this.writer = new ConditionalWriter(this.documents, "endpoint", {
      ledger: this.ledger,
      scopeOf: ({ partitionKey }) => this.quotaScope(partitionKey),
    });
  }

  async get(path: EndpointPath): Promise<Versioned<QueueEndpoint>> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    if (!document) throw notFound(path);
    return this.toResource(document);
  }

  async list(path: InstancePath, page: PageRequest, only?: readonly string[]): Promise<Page<QueueEndpoint>> {
    const ids = onlyIds(only, (endpointName) => addressOf({ ...path, endpointName }).id);
    const result = await this.documents.queryPage(this.instanceQuery(path, "SELECT * FROM c", ids), page);
    return mapPage(result, (document) => this.toListItem(document));
  }

  /**
   * Every endpoint of an instance with its secrets opened, and the instance's event routes, for
   * delivery: one partition, one query.
   */
  async listForDelivery(path: InstancePath): Promise<InstanceDelivery> {
    const documents = await this.documents.queryAll<Stored<EndpointDocument | RouteFields>>(
      this.instanceQuery(path, "SELECT * FROM c", undefined, ENDPOINTS_AND_ROUTES),
    );
    const found: InstanceDelivery = { endpoints: [], routes: [] };
    for (const document of documents) {
      if (isRouteDocument(document)) {
        const { name, endpointName, filter } = document as RouteFields;
        found.routes.push({ name, endpointName, filter });
      } else {
        found.endpoints.push(this.forDelivery(document as Stored<EndpointDocument>));
      }
    }
    return found;
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
    const kind = body.authenticationType ?? "KeyBased";
    // Parsed and checked before anything is read: a bad body is a 400 whatever is stored.
    const settings =
      body.authenticationType === "IdentityBased"
        ? { identity: parseIdentitySettings(identitySettingsOf(body), this.rules) }
        : {
            secrets: parseEndpointSecrets(
              {
                queuePrimaryConnectionString: body.queuePrimaryConnectionString,
                queueSecondaryConnectionString: body.queueSecondaryConnectionString,
                ...(body.deadLetterStorageSecret !== undefined && {
                  deadLetterStorageSecret: body.deadLetterStorageSecret,
                }),
              },
              this.rules.allowList,
            ),
          };
    const now = new Date().toISOString();
    const { document, created } = await this.writer.put(
      addressOf(path),
      preconditions,
      (existing, address) => {
        if (existing) refuseKindChange(kindOf(existing), kind);
        checkEchoedSystemData(body.systemData, existing && currentSystemData(existing));
        const base = existing ?? {
          id: address.id,
          instanceKey: address.partitionKey,
          name: path.endpointName,
          twinsInstanceId: twinsInstanceId(path),
          createdAt: now,
        };
        const systemData = stampSystemData(existing && currentSystemData(existing), actor, now);
        return settings.secrets
          ? this.sealed(base, settings.secrets, now, systemData)
          : identityDocument(base, settings.identity, now, systemData);
      },
    );
    return {
      versioned: this.toResource(document, settings.secrets && maskedSecrets(settings.secrets)),
      created,
    };
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
        checkPatchKind(kindOf(existing), body);
        checkEchoedSystemData(body.systemData, currentSystemData(existing));
        const now = new Date().toISOString();
        const systemData = stampSystemData(currentSystemData(existing), actor, now);
        if (existing.identityBased) {
          const merged = mergeIdentitySettings(existing, body);
          return identityDocument(existing, parseIdentitySettings(merged, this.rules), now, systemData);
        }
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
        const secrets = parseEndpointSecrets(merged, this.rules.allowList);
        shown = maskedSecrets(secrets);
        return this.sealed(existing, secrets, now, systemData);
      },
      () => notFound(path),
    );
    return this.toResource(document, shown);
  }

  /**
   * 409 while event routes name the endpoint: none is left pointing at nothing. With `access`, it
   * names only the routes the caller may read, and counts the others.
   */
  delete(path: EndpointPath, preconditions: Preconditions, access?: LinkedAccess): Promise<boolean> {
    const address = addressOf(path);
    const mayRead =
      access &&
      ((routeNameKey: string) =>
        access.permits(EVENT_ROUTE_READ_ACTION, eventRouteId(twinsInstanceId(path), routeNameKey)));
    return this.writer.delete(address, preconditions, () =>
      noRouteNames(this.routes, address.partitionKey, path.endpointName, mayRead),
    );
  }

  /**
   * Re-seals every stored endpoint's secrets under the current key (key rotation, docs/operations.md).
   * Each document is replaced only on the version it was read at (If-Match its ETag), with nothing
   * changed but the sealed box: a user's write that lands meanwhile wins, and is sealed under the
   * current key of the host that took it; this call then reads it again and leaves it alone when
   * it is under the current key. Safe to run twice and on several hosts at once: a document
   * re-sealed by one is current for the others. `systemData` and `updatedAt` are not changed (no
   * user changed the endpoint). Secrets are opened in memory only; the report holds ids and key
   * fingerprints. `dryRun` writes nothing and reports what a run would leave to do.
   */
  async reseal(options: { dryRun?: boolean } = {}): Promise<ResealReport> {
    const currentKeyId = this.secretBox.currentKeyId;
    const documents = await this.allEndpoints();
    const report: ResealReport = {
      currentKeyId,
      scanned: documents.length,
      resealed: 0,
      alreadyCurrent: 0,
      writtenMeanwhile: 0,
      deleted: 0,
      remaining: {},
      remainingEndpoints: [],
    };
    for (const found of documents) {
      let document: KeyedDocument | undefined = found;
      for (let attempt = 0; ; attempt++) {
        if (document === undefined) {
          report.deleted++;
          break;
        }
        if (document.secrets.keyId === currentKeyId) {
          if (attempt === 0) report.alreadyCurrent++;
          else report.writtenMeanwhile++;
          break;
        }
        // Left to the final count: a box this deployment cannot open, or a dry run.
        if (options.dryRun || attempt >= RESEAL_ATTEMPTS) break;
        let plaintext: string;
        try {
          plaintext = this.secretBox.open(document.secrets, sealingContext(document));
        } catch (error) {
          if (!(error instanceof SecretsUnreadable)) throw error;
          break;
        }
        const { _etag, ...body } = document;
        try {
          await this.documents.replace(
            { ...body, secrets: this.secretBox.seal(plaintext, sealingContext(body)) },
            _etag,
          );
          report.resealed++;
          break;
        } catch (error) {
          if (!(error instanceof PreconditionFailed)) throw error;
          // Written (or deleted) since it was read: read what is there now and judge that (an
          // endpoint made again IdentityBased has nothing to re-seal: as good as deleted).
          const now = await this.documents.read(document.id, document.instanceKey);
          document = now && isKeyed(now) ? now : undefined;
        }
      }
    }
    // The truth at the end, whatever ran at the same time: what is still on another key.
    const after = await this.allEndpoints();
    for (const document of after) {
      const { keyId } = document.secrets;
      if (keyId === currentKeyId) continue;
      report.remaining[keyId] = (report.remaining[keyId] ?? 0) + 1;
      if (report.remainingEndpoints.length < RESEAL_LISTED) {
        report.remainingEndpoints.push({
          id: endpointId(document.twinsInstanceId, document.name),
          keyId,
          reason: options.dryRun ? "DryRun" : this.whyLeft(document),
        });
      }
    }
    return report;
  }

  /** Every stored endpoint, of every instance: one cross-partition query (what holds no sealed box is no endpoint). */
  private async allEndpoints(): Promise<KeyedDocument[]> {
    const documents = await this.documents.queryAll<Stored<EndpointDocument>>(ALL_ENDPOINTS);
    return documents.filter(isKeyed);
  }

  /** Why a document under another key could not be re-sealed: its key is missing, or it was altered. */
  private whyLeft(document: KeyedDocument): LeftOnOldKey["reason"] {
    try {
      this.secretBox.open(document.secrets, sealingContext(document));
      return "RunAgain";
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      return /does not have/.test(error.message) ? "KeyMissing" : "Altered";
    }
  }

  private sealed(
    base: DocumentBase,
    secrets: ParsedEndpointSecrets,
    now: string,
    systemData: SystemData,
  ): EndpointDocument {
    return writtenDocument(base, secrets.queuePrimaryConnectionString.parts.entityPath, now, systemData, {
      secrets: this.secretBox.seal(JSON.stringify(secretTexts(secrets)), sealingContext(base)),
    });
  }

  /** A KeyBased endpoint's secrets, opened (SecretsUnreadable when this deployment cannot). */
  private openSecrets(document: EndpointDocument): EndpointSecrets {
    if (document.secrets === undefined) throw new Error(`endpoint ${document.id} has no secrets to open`);
    return endpointSecretsSchema.parse(
      JSON.parse(this.secretBox.open(document.secrets, sealingContext(document))),
    );
  }

  /** The resource; a KeyBased one shows `masked`, or its stored secrets masked when not given. */
  private toResource(document: Stored<EndpointDocument>, masked?: MaskedSecrets): Versioned<QueueEndpoint> {
    const common = {
      id: endpointId(document.twinsInstanceId, document.name),
      name: document.name,
      twinsInstanceId: document.twinsInstanceId,
    };
    if (document.identityBased) {
      return { resource: identityResource(document, common), etag: document._etag };
    }
    const shown = masked ?? maskedStoredSecrets(this.openSecrets(document));
    return {
      resource: {
        ...common,
        authenticationType: "KeyBased",
        queuePrimaryConnectionString: shown.queuePrimaryConnectionString,
        queueSecondaryConnectionString: shown.queueSecondaryConnectionString,
        ...(shown.deadLetterStorageSecret !== undefined && {
          deadLetterStorageSecret: shown.deadLetterStorageSecret,
        }),
        systemData: currentSystemData(document),
      },
      etag: document._etag,
    };
  }

  /** One document this deployment cannot open must not hide the others: it is listed fully masked. */
  private toListItem(document: Stored<EndpointDocument>): QueueEndpoint {
    try {
      return this.toResource(document).resource;
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      const id = endpointId(document.twinsInstanceId, document.name);
      this.warn(`endpoint ${id} is listed with its secrets masked: SecretsUnreadable: ${error.message}`);
      return {
        id,
        name: document.name,
        twinsInstanceId: document.twinsInstanceId,
        authenticationType: "KeyBased",
        queuePrimaryConnectionString: MASKED,
        queueSecondaryConnectionString: MASKED,
        systemData: currentSystemData(document),
      };
    }
  }

  /**
   * Delivery re-checks the allow-list (and, for an IdentityBased endpoint, that its identity is
   * still the app's for endpoints): a document stored before it (or under a wider one) must not
   * make the service send where it no longer may. The sender pool refuses such connection strings
   * and namespaces; a refused dead-letter location is left out, so what cannot be delivered is
   * poisoned. Secrets this deployment cannot open hold up that endpoint alone: it comes without them.
   */
  private forDelivery(document: Stored<EndpointDocument>): DeliveryEndpoint {
    const id = endpointId(document.twinsInstanceId, document.name);
    const base = {
      id,
      name: document.name,
      topic: document.topic,
      version: document._etag,
      createdAt: document.createdAt,
    };
    if (document.identityBased) return this.identityForDelivery(base, document.identityBased);
    let opened: EndpointSecrets;
    try {
      opened = this.openSecrets(document);
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      this.warn(
        `endpoint ${id}: its secrets cannot be opened (SecretsUnreadable: ${error.message}); events for it fail, and go to the poison queue once their retries run out`,
      );
      return {
        ...base,
        unusable: {
          code: "SecretsUnreadable",
          reason: `the endpoint's secrets cannot be opened: ${error.message}`,
        },
      };
    }
    const { deadLetterStorageSecret, queuePrimaryConnectionString, queueSecondaryConnectionString } = opened;
    const deadLetterAdmitted =
      deadLetterStorageSecret !== undefined &&
      deadLetterSecretProblems(deadLetterStorageSecret, this.rules.allowList).length === 0;
    if (deadLetterStorageSecret !== undefined && !deadLetterAdmitted) {
      this.warn(
        `endpoint ${id}: its deadLetterStorageSecret points where STORAGE_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS do not admit; it is not used, and events it would take go to the poison queue`,
      );
    }
    return {
      ...base,
      sendTo: [
        { connectionString: queuePrimaryConnectionString },
        { connectionString: queueSecondaryConnectionString },
      ],
      ...(deadLetterAdmitted && { deadLetter: { sasUrl: deadLetterStorageSecret } }),
    };
  }

  /**
   * An IdentityBased endpoint whose settings no longer pass (hosts or identity narrowed since it
   * was written) sends nowhere: its events fail, then go to the poison queue, as a refused
   * connection string's do. The reason names settings, never values the caller chose to hide.
   */
  private identityForDelivery(
    base: Pick<DeliveryEndpoint, "id" | "name" | "topic" | "version">,
    stored: NonNullable<EndpointDocument["identityBased"]>,
  ): DeliveryEndpoint {
    const read = readIdentitySettings({ ...stored, entityPath: base.topic }, this.rules);
    if (!read.ok) {
      const problems = read.problems.map((problem) => problem.message);
      const reason = `the endpoint's settings are no longer admitted: ${problems.join(" ")}`;
      this.warn(
        `endpoint ${base.id}: ${reason}; events for it go to the poison queue once their retries run out`,
      );
      return { ...base, unusable: { code: "SettingsNotAdmitted", reason } };
    }
    const { namespace } = read.value;
    const identity = stored.identity && { identity: stored.identity };
    return {
      ...base,
      sendTo: [{ namespace: namespaceOf(namespace), ...identity }],
      ...(stored.deadLetterUri !== undefined && { deadLetter: { url: stored.deadLetterUri, ...identity } }),
    };
  }

  private instanceQuery(
    path: InstancePath,
    select: string,
    ids: OnlyIds = onlyIds(undefined),
    kinds = ENDPOINTS_ONLY,
  ) {
    // The partition key is filtered in the query text too: the local Cosmos server ignores the option.
    return {
      query: `${select} WHERE c.instanceKey = @instanceKey AND ${kinds}${ids.clause} ORDER BY c.id`,
      parameters: [{ name: "@instanceKey", value: instanceKey(path) }, ...ids.parameters],
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

/** Every endpoint of every instance (the ledgers and event routes kept beside them left out). */
const ALL_ENDPOINTS = { query: `SELECT * FROM c WHERE ${ENDPOINTS_ONLY}`, parameters: [] };

/** What delivery reads of an event route's document (src/event-routes/event-route-service.ts writes them). */
type RouteFields = DeliveryRoute & { id: string };

function notFound(path: EndpointPath): ResourceNotFound {
  return new ResourceNotFound(
    `The endpoint '${path.endpointName}' of the digital twins instance '${path.instanceName}' was not found.`,
  );
}
