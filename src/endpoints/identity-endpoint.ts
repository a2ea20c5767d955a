import { type ErrorDetail, invalidRequest } from "../common/errors";
import { ENTITY_PATH, readEndpoint } from "./connection-string";
import { type ContainerUrl, parseDeadLetterUri } from "./dead-letter-secret";
import {
  deadLetterHostProblems,
  type EndpointAllowList,
  serviceBusHostProblems,
} from "./endpoint-allow-list";
import type { Authority } from "./host-names";
import {
  describeIdentity,
  identityAvailable,
  isUserAssignedIdentityId,
  type ManagedIdentity,
} from "./managed-identity";

/** An identity-based endpoint's settings as sent or stored: nothing in them is a secret. */
export interface IdentitySettings {
  endpointUri: string;
  entityPath: string;
  deadLetterUri?: string;
  identity?: ManagedIdentity;
}

/** The settings read once: where the service connects is taken from here, never from the text again. */
export interface ParsedIdentitySettings extends IdentitySettings {
  namespace: Authority;
  deadLetter?: ContainerUrl;
}

/** Where the service may use an identity-based endpoint's settings: the hosts, and the identities it has. */
export interface IdentityRules {
  allowList: EndpointAllowList;
  /** ENDPOINT_USER_ASSIGNED_IDENTITIES. */
  attachedIdentities: readonly string[];
}

/** `host[:port]`, as the Service Bus client takes a fully qualified namespace. */
export function namespaceOf(authority: Authority): string {
  return authority.port === undefined ? authority.hostname : `${authority.hostname}:${authority.port}`;
}

function detail(target: string, problem: string): ErrorDetail {
  return { code: "InvalidValue", message: `The field '${target}' ${problem}.`, target };
}

function namespaceProblems(
  endpointUri: string,
  rules: IdentityRules,
): { problems: string[]; namespace?: Authority } {
  const endpoint = readEndpoint(endpointUri);
  if (!endpoint.ok) {
    return {
      problems: [
        "must be sb://<namespace host>/, the host written plainly (DNS labels; no user information, percent-encoding or numeric IP forms)",
      ],
    };
  }
  return {
    problems: serviceBusHostProblems(endpoint.authority, rules.allowList),
    namespace: endpoint.authority,
  };
}

function entityPathProblems(entityPath: string): string[] {
  return ENTITY_PATH.test(entityPath)
    ? []
    : ["must be a topic name (letters, digits, '.', '-', '_', '/'; at most 260)"];
}

function deadLetterProblems(
  deadLetterUri: string,
  rules: IdentityRules,
): { problems: string[]; deadLetter?: ContainerUrl } {
  const parsed = parseDeadLetterUri(deadLetterUri);
  if (!parsed.ok) return { problems: parsed.problems };
  const problems = deadLetterHostProblems(parsed.value, rules.allowList);
  return problems.length > 0 ? { problems } : { problems, deadLetter: parsed.value };
}

function identityProblems(identity: ManagedIdentity | undefined, rules: IdentityRules): string[] {
  return identityAvailable(identity, rules.attachedIdentities)
    ? []
    : [
        `names ${describeIdentity(identity)}, which is not attached to this service for endpoints (ENDPOINT_USER_ASSIGNED_IDENTITIES)`,
      ];
}

/**
 * Reads an identity-based endpoint's settings and checks them: the namespace and the dead-letter
 * container where the allow-list admits, the topic's name, an identity the app has for endpoints.
 * Every field's problems, or the settings read: a write answers the problems (parseIdentitySettings),
 * delivery uses the settings or says why it cannot (settings may have narrowed since the write).
 */
export function readIdentitySettings(
  settings: IdentitySettings,
  rules: IdentityRules,
): { ok: true; value: ParsedIdentitySettings } | { ok: false; problems: ErrorDetail[] } {
  const { problems: uriProblems, namespace } = namespaceProblems(settings.endpointUri, rules);
  const dead =
    settings.deadLetterUri === undefined
      ? { problems: [] }
      : deadLetterProblems(settings.deadLetterUri, rules);
  const problems = [
    ...uriProblems.map((problem) => detail("endpointUri", problem)),
    ...entityPathProblems(settings.entityPath).map((problem) => detail("entityPath", problem)),
    ...dead.problems.map((problem) => detail("deadLetterUri", problem)),
    ...identityProblems(settings.identity, rules).map((problem) =>
      detail("identity.userAssignedIdentity", problem),
    ),
  ];
  if (problems.length > 0 || namespace === undefined) return { ok: false, problems };
  return {
    ok: true,
    value: { ...settings, namespace, ...(dead.deadLetter && { deadLetter: dead.deadLetter }) },
  };
}

/**
 * The problems of the fields of a refused IdentityBased body that read as strings, for the 400 its
 * schema answers: one answer names every field's problems (a missing entityPath must not hide a
 * namespace the service will not send to).
 */
export function readableIdentityProblems(body: Record<string, unknown>, rules: IdentityRules): ErrorDetail[] {
  if (body.authenticationType !== "IdentityBased") return [];
  const text = (field: string) => (typeof body[field] === "string" ? (body[field] as string) : undefined);
  const endpointUri = text("endpointUri");
  const deadLetterUri = text("deadLetterUri");
  const identity = body.identity as { type?: unknown; userAssignedIdentity?: unknown } | undefined;
  const userAssigned =
    identity?.type === "UserAssigned" &&
    typeof identity.userAssignedIdentity === "string" &&
    isUserAssignedIdentityId(identity.userAssignedIdentity)
      ? { type: "UserAssigned" as const, userAssignedIdentity: identity.userAssignedIdentity }
      : undefined;
  return [
    ...(endpointUri === undefined ? [] : namespaceProblems(endpointUri, rules).problems).map((problem) =>
      detail("endpointUri", problem),
    ),
    ...(deadLetterUri === undefined ? [] : deadLetterProblems(deadLetterUri, rules).problems).map((problem) =>
      detail("deadLetterUri", problem),
    ),
    ...identityProblems(userAssigned, rules).map((problem) =>
      detail("identity.userAssignedIdentity", problem),
    ),
  ];
}

/** readIdentitySettings for a write: the settings read, or the 400 naming every field's problems. */
export function parseIdentitySettings(
  settings: IdentitySettings,
  rules: IdentityRules,
): ParsedIdentitySettings {
  const read = readIdentitySettings(settings, rules);
  if (!read.ok) throw invalidRequest(read.problems);
  return read.value;
}
