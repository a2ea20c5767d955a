import { type ErrorDetail, InvalidRequestContent, invalidRequest } from "../common/errors";
import {
  type ConnectionString,
  maskConnectionString,
  type ParseResult,
  parseConnectionString,
} from "./connection-string";
import {
  type DeadLetterParseResult,
  type DeadLetterSecret,
  maskDeadLetterSecret,
  parseDeadLetterSecret,
} from "./dead-letter-secret";
import {
  connectionStringHostProblems,
  deadLetterHostProblems,
  type EndpointAllowList,
} from "./endpoint-allow-list";
import type { EndpointSecrets, KeyBasedEndpoint } from "./endpoint-schema";

/**
 * The secrets of an endpoint being written, each parsed once: the checks, the sealed text, the
 * stored topic and the masked response are all read from these values.
 */
export interface ParsedEndpointSecrets {
  queuePrimaryConnectionString: ConnectionString;
  queueSecondaryConnectionString: ConnectionString;
  deadLetterStorageSecret?: DeadLetterSecret;
}

/** The fields of a response that show secrets, masked. */
export type MaskedSecrets = Pick<
  KeyBasedEndpoint,
  "queuePrimaryConnectionString" | "queueSecondaryConnectionString" | "deadLetterStorageSecret"
>;

/**
 * Secrets to check before a write: values the request body parsed already, or text kept from the
 * stored document (a PATCH keeps what it does not change), parsed here.
 */
export interface EndpointSecretsToCheck {
  queuePrimaryConnectionString: ConnectionString | string;
  queueSecondaryConnectionString: ConnectionString | string;
  deadLetterStorageSecret?: DeadLetterSecret | string;
}

function parsedConnection(secret: ConnectionString | string): ParseResult {
  return typeof secret === "string" ? parseConnectionString(secret) : { ok: true, value: secret };
}

function topicOf(parsed: ParseResult): string {
  return parsed.ok ? parsed.value.parts.entityPath : "";
}

function details(target: keyof EndpointSecrets, problems: string[]): ErrorDetail[] {
  return problems.map((problem) => ({
    code: "InvalidValue",
    message: `The field '${target}' ${problem}.`,
    target,
  }));
}

const TOPIC_MISMATCH: ErrorDetail = {
  code: "TopicMismatch",
  message: "The EntityPath of the two connection strings differs.",
  target: "queueSecondaryConnectionString",
};

/**
 * Parses the secrets of a write once and checks them: the two connection strings name the same
 * topic, and each secret is well formed (a PATCH keeps stored secrets, which may predate the
 * current rules) and points where the allow-list admits. Throws the 400 that says what is wrong.
 */
export function parseEndpointSecrets(
  secrets: EndpointSecretsToCheck,
  allowList: EndpointAllowList,
): ParsedEndpointSecrets {
  const primary = parsedConnection(secrets.queuePrimaryConnectionString);
  const secondary = parsedConnection(secrets.queueSecondaryConnectionString);
  const stored = secrets.deadLetterStorageSecret;
  const deadLetter: DeadLetterParseResult | undefined =
    stored === undefined
      ? undefined
      : typeof stored === "string"
        ? parseDeadLetterSecret(stored)
        : { ok: true, value: stored };
  // Every field's problems at once: one bad string must not hide another's (nor a topic mismatch
  // hide either). Topics are compared only when both strings read.
  const problems = [
    ...details(
      "queuePrimaryConnectionString",
      primary.ok ? connectionStringHostProblems(primary.value, allowList) : primary.problems,
    ),
    ...details(
      "queueSecondaryConnectionString",
      secondary.ok ? connectionStringHostProblems(secondary.value, allowList) : secondary.problems,
    ),
    ...(primary.ok && secondary.ok && topicOf(primary) !== topicOf(secondary) ? [TOPIC_MISMATCH] : []),
    ...details(
      "deadLetterStorageSecret",
      deadLetter === undefined
        ? []
        : deadLetter.ok
          ? deadLetterHostProblems(deadLetter.value, allowList)
          : deadLetter.problems,
    ),
  ];
  if (problems.length === 1 && problems[0] === TOPIC_MISMATCH) {
    throw new InvalidRequestContent(
      "queueSecondaryConnectionString must name the same topic (EntityPath) as queuePrimaryConnectionString.",
      "queueSecondaryConnectionString",
      [TOPIC_MISMATCH],
    );
  }
  if (problems.length > 0 || !primary.ok || !secondary.ok || deadLetter?.ok === false) {
    throw invalidRequest(problems);
  }
  return {
    queuePrimaryConnectionString: primary.value,
    queueSecondaryConnectionString: secondary.value,
    ...(deadLetter !== undefined && { deadLetterStorageSecret: deadLetter.value }),
  };
}

/**
 * Where the secrets of a refused body point, for those that read: the body's schema reports what
 * does not read, and these are added, so one answer names every field's problems (an unreadable
 * secondary string must not hide that the primary points at a host the service refuses).
 */
export function readableSecretsProblems(
  body: Record<string, unknown>,
  allowList: EndpointAllowList,
): ErrorDetail[] {
  const read = (field: "queuePrimaryConnectionString" | "queueSecondaryConnectionString") => {
    const text = body[field];
    return typeof text === "string" ? parseConnectionString(text) : undefined;
  };
  const primary = read("queuePrimaryConnectionString");
  const secondary = read("queueSecondaryConnectionString");
  const deadLetter =
    typeof body.deadLetterStorageSecret === "string"
      ? parseDeadLetterSecret(body.deadLetterStorageSecret)
      : undefined;
  return [
    ...details(
      "queuePrimaryConnectionString",
      primary?.ok ? connectionStringHostProblems(primary.value, allowList) : [],
    ),
    ...details(
      "queueSecondaryConnectionString",
      secondary?.ok ? connectionStringHostProblems(secondary.value, allowList) : [],
    ),
    ...(primary?.ok && secondary?.ok && topicOf(primary) !== topicOf(secondary) ? [TOPIC_MISMATCH] : []),
    ...details(
      "deadLetterStorageSecret",
      deadLetter?.ok ? deadLetterHostProblems(deadLetter.value, allowList) : [],
    ),
  ];
}

/** The secrets as sent: what is sealed. */
export function secretTexts(secrets: ParsedEndpointSecrets): EndpointSecrets {
  return {
    queuePrimaryConnectionString: secrets.queuePrimaryConnectionString.text,
    queueSecondaryConnectionString: secrets.queueSecondaryConnectionString.text,
    ...(secrets.deadLetterStorageSecret !== undefined && {
      deadLetterStorageSecret: secrets.deadLetterStorageSecret.text,
    }),
  };
}

/** What a response to a write shows: the masks of the values just parsed. */
export function maskedSecrets(secrets: ParsedEndpointSecrets): MaskedSecrets {
  return {
    queuePrimaryConnectionString: secrets.queuePrimaryConnectionString.masked,
    queueSecondaryConnectionString: secrets.queueSecondaryConnectionString.masked,
    ...(secrets.deadLetterStorageSecret !== undefined && {
      deadLetterStorageSecret: secrets.deadLetterStorageSecret.masked,
    }),
  };
}

/**
 * What a read shows of stored secrets. The masks are total, not parsed: a document stored before
 * the current rules may hold any spelling, and none may show a secret.
 */
export function maskedStoredSecrets(secrets: EndpointSecrets): MaskedSecrets {
  return {
    queuePrimaryConnectionString: maskConnectionString(secrets.queuePrimaryConnectionString),
    queueSecondaryConnectionString: maskConnectionString(secrets.queueSecondaryConnectionString),
    ...(secrets.deadLetterStorageSecret !== undefined && {
      deadLetterStorageSecret: maskDeadLetterSecret(secrets.deadLetterStorageSecret),
    }),
  };
}
