import { legacySystemData, type SystemData } from "../common/system-data";
import type { SealedBox } from "../secrets/secret-box";
import type { Stored } from "../store/document-store";
import type { EndpointPatch, EndpointPut, IdentityBasedEndpoint, QueueEndpoint } from "./endpoint-schema";
import type { IdentitySettings } from "./identity-endpoint";

/**
 * The stored form. Partitioned by the instance (lower-cased id), so one instance's endpoints are
 * one partition: the delivery lookup is a single-partition query. No plaintext secret is stored.
 */
export interface EndpointDocument {
  id: string;
  instanceKey: string;
  name: string;
  twinsInstanceId: string;
  /** The topic (EntityPath, or entityPath): not a secret, kept in clear for operators. */
  topic: string;
  /** A KeyBased endpoint's secrets, sealed; an IdentityBased one has none. */
  secrets?: SealedBox;
  /** An IdentityBased endpoint's settings, none of them secret (absent: KeyBased, as every endpoint before them). */
  identityBased?: Omit<IdentitySettings, "entityPath">;
  createdAt: string;
  updatedAt: string;
  /** Absent on endpoints written before systemData was recorded. */
  systemData?: SystemData;
}

export function currentSystemData(document: EndpointDocument): SystemData {
  return document.systemData ?? legacySystemData(document);
}

/** A KeyBased endpoint's document: one with a sealed box (what the re-seal goes through). */
export type KeyedDocument = Stored<EndpointDocument> & { secrets: SealedBox };

export function isKeyed(document: Stored<EndpointDocument>): document is KeyedDocument {
  return typeof document.secrets?.keyId === "string";
}

export function kindOf(document: EndpointDocument): QueueEndpoint["authenticationType"] {
  return document.identityBased ? "IdentityBased" : "KeyBased";
}

export function identitySettingsOf(
  body: Extract<EndpointPut, { authenticationType: "IdentityBased" }>,
): IdentitySettings {
  return {
    endpointUri: body.endpointUri,
    entityPath: body.entityPath,
    ...(body.deadLetterUri !== undefined && { deadLetterUri: body.deadLetterUri }),
    ...(body.identity !== undefined && { identity: body.identity }),
  };
}

/** A PATCH over a stored IdentityBased endpoint: what it leaves out is kept; `deadLetterUri: null` removes it. */
export function mergeIdentitySettings(existing: EndpointDocument, body: EndpointPatch): IdentitySettings {
  const stored = existing.identityBased as NonNullable<EndpointDocument["identityBased"]>;
  const deadLetterUri = body.deadLetterUri === undefined ? stored.deadLetterUri : body.deadLetterUri;
  const identity = body.identity ?? stored.identity;
  return {
    endpointUri: body.endpointUri ?? stored.endpointUri,
    entityPath: body.entityPath ?? existing.topic,
    ...(deadLetterUri !== null && deadLetterUri !== undefined && { deadLetterUri }),
    ...(identity !== undefined && { identity }),
  };
}

/** What a write keeps of the document it replaces (or makes for a new one). */
export type DocumentBase = Pick<
  EndpointDocument,
  "id" | "instanceKey" | "name" | "twinsInstanceId" | "createdAt"
>;

/** A document as written, of either kind: the kind's own fields beside those every endpoint has. */
export function writtenDocument(
  base: DocumentBase,
  topic: string,
  now: string,
  systemData: SystemData,
  kind: Pick<EndpointDocument, "secrets"> | Pick<EndpointDocument, "identityBased">,
): EndpointDocument {
  return {
    id: base.id,
    instanceKey: base.instanceKey,
    name: base.name,
    twinsInstanceId: base.twinsInstanceId,
    topic,
    ...kind,
    createdAt: base.createdAt,
    updatedAt: now,
    systemData,
  };
}

/** An IdentityBased endpoint's document: its settings in clear, nothing sealed. */
export function identityDocument(
  base: DocumentBase,
  settings: IdentitySettings,
  now: string,
  systemData: SystemData,
): EndpointDocument {
  return writtenDocument(base, settings.entityPath, now, systemData, {
    identityBased: {
      endpointUri: settings.endpointUri,
      ...(settings.deadLetterUri !== undefined && { deadLetterUri: settings.deadLetterUri }),
      ...(settings.identity !== undefined && { identity: settings.identity }),
    },
  });
}

export function identityResource(
  document: EndpointDocument,
  common: Pick<IdentityBasedEndpoint, "id" | "name" | "twinsInstanceId">,
): IdentityBasedEndpoint {
  const stored = document.identityBased as NonNullable<EndpointDocument["identityBased"]>;
  return {
    ...common,
    authenticationType: "IdentityBased",
    endpointUri: stored.endpointUri,
    entityPath: document.topic,
    ...(stored.deadLetterUri !== undefined && { deadLetterUri: stored.deadLetterUri }),
    ...(stored.identity !== undefined && { identity: stored.identity }),
    systemData: currentSystemData(document),
  };
}
