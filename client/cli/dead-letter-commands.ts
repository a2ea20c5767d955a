import { parseEndpointId } from "../resource-paths";
import type { DeadLetterReason } from "../types";
import { type OptionSpec, stringOption, UsageError } from "./args";
import type { CommandContext, CommandSpec, GroupSpec, Outcome } from "./command-spec";
import {
  DEAD_LETTER_REASONS,
  type DeadLetter,
  type DeadLetterSelection,
  deadLetterOf,
  isSelected,
} from "./dead-letter-listing";
import { EXIT } from "./exit-codes";
import { shorten, table } from "./output";
import {
  givenAccess,
  localAccess,
  STORAGE_RETRY,
  type StorageAccess,
  storageFailure,
  urlSecrets,
} from "./storage-access";

/**
 * `twin dead-letters`: an endpoint's dead letters, listed from the owner's container with the
 * operator's own access (the service never shows the container's SAS back), and redelivered by the
 * service (`POST {endpointId}/redeliverDeadLetters`).
 */

const EXAMPLE_ENDPOINT =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/factory-twins/endpoints/orders";

const CONTAINER_URL: OptionSpec = {
  name: "container-url",
  type: "string",
  value: "url",
  description:
    "the endpoint's dead-letter container: a SAS URL (sp=rl), or https://<account>.blob.core.windows.net/<container> with DefaultAzureCredential (Storage Blob Data Reader); --local: the stack's",
};
const IDENTITY: OptionSpec = {
  name: "identity",
  type: "boolean",
  description: "with --local: the stack's container for IdentityBased endpoints (DEAD_LETTER_CONTAINER_URI)",
};
const REASON: OptionSpec = {
  name: "reason",
  type: "string",
  value: "reason",
  description: `only dead letters of this deadletterreason, exactly: ${DEAD_LETTER_REASONS.join(", ")}`,
};
const FROM: OptionSpec = {
  name: "from",
  type: "string",
  value: "time",
  description: "only those dead-lettered at or after this ISO 8601 time (2026-11-22T00:00:00Z)",
};
const TO: OptionSpec = {
  name: "to",
  type: "string",
  value: "time",
  description: "only those dead-lettered at or before this ISO 8601 time",
};
const SHOW_EVENTS: OptionSpec = {
  name: "show-events",
  type: "boolean",
  description: "each dead letter's event too (the CloudEvent the blob holds)",
};
const WAIT: OptionSpec = {
  name: "wait",
  type: "string",
  value: "seconds",
  description: "wait up to this long for a first one (checked each second); exit 1 if none comes",
};
const FORCE: OptionSpec = {
  name: "force",
  type: "boolean",
  description: "also those an earlier redelivery marked redelivered",
};
const INSTANCE: OptionSpec = {
  name: "instance",
  type: "string",
  value: "instance id",
  description: "the endpoint's digital-twins instance, when the endpoint is given by name",
};

export const DEAD_LETTER_OPTIONS = [CONTAINER_URL, IDENTITY, REASON, FROM, TO, SHOW_EVENTS, WAIT, FORCE];

function reasonOption(context: CommandContext): DeadLetterReason | undefined {
  const reason = stringOption(context.values, "reason", context.usage);
  if (reason === undefined) return undefined;
  const known = DEAD_LETTER_REASONS.find((each) => each === reason);
  if (known === undefined) {
    throw new UsageError(
      `--reason takes one of ${DEAD_LETTER_REASONS.join(", ")} (letter case as written), not ${reason}.`,
      context.usage,
    );
  }
  return known;
}

function timeOption(context: CommandContext, name: "from" | "to"): string | undefined {
  const raw = stringOption(context.values, name, context.usage);
  if (raw === undefined) return undefined;
  // What the service takes: a date and time with an offset (Z or ±hh:mm).
  if (
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(raw) ||
    Number.isNaN(Date.parse(raw))
  ) {
    throw new UsageError(
      `--${name} takes an ISO 8601 time with an offset (2026-11-22T00:00:00Z), not ${raw}.`,
      context.usage,
    );
  }
  return raw;
}

function windowOptions(context: CommandContext): { from?: string; to?: string; reason?: DeadLetterReason } {
  const from = timeOption(context, "from");
  const to = timeOption(context, "to");
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
    throw new UsageError("--from must not be later than --to.", context.usage);
  }
  const reason = reasonOption(context);
  return { ...(from && { from }), ...(to && { to }), ...(reason && { reason }) };
}

/** The endpoint's name from its id (or the name itself); undefined when none is given. */
function endpointName(context: CommandContext): string | undefined {
  const value = context.positionals[0]?.trim();
  if (value === undefined || value === "") return undefined;
  if (!value.startsWith("/")) return value;
  const parsed = parseEndpointId(value);
  if (parsed === undefined) throw new UsageError(`Not an endpoint id: ${value}`, context.usage);
  return parsed.name;
}

async function containerAccess(context: CommandContext): Promise<StorageAccess> {
  const given = stringOption(context.values, "container-url", context.usage);
  if (given !== undefined) {
    for (const secret of urlSecrets(given)) context.secret(secret);
    return givenAccess(given, "--container-url");
  }
  if (context.values.local === true) {
    const name = context.values.identity === true ? "IDENTITY_DEAD_LETTER_URL" : "DEAD_LETTER_URL";
    const access = localAccess(context.values, context.cwd, name, "--container-url");
    for (const secret of urlSecrets(access.url)) context.secret(secret);
    return access;
  }
  throw new UsageError(
    "--container-url is required (or --local): the service never shows an endpoint's dead-letter SAS back.",
    context.usage,
  );
}

async function readDeadLetters(
  access: StorageAccess,
  prefix: string,
  selection: DeadLetterSelection,
  withEvents: boolean,
): Promise<(DeadLetter & { event?: unknown })[]> {
  const { ContainerClient } = await import("@azure/storage-blob");
  const container = new ContainerClient(access.url, access.credential, {
    ...access.pipeline,
    retryOptions: STORAGE_RETRY,
  });
  const found: (DeadLetter & { event?: unknown })[] = [];
  let step = "list the blobs of";
  try {
    for await (const blob of container.listBlobsFlat({ prefix, includeMetadata: true })) {
      const deadLetter = deadLetterOf({
        name: blob.name,
        ...(blob.metadata && { metadata: blob.metadata }),
        ...(blob.properties.createdOn && { createdOn: blob.properties.createdOn }),
      });
      if (!isSelected(deadLetter, selection)) continue;
      if (!withEvents) {
        found.push(deadLetter);
        continue;
      }
      step = `read ${blob.name} in`;
      const body = (await container.getBlobClient(blob.name).downloadToBuffer()).toString("utf8");
      found.push({ ...deadLetter, event: parsedOrText(body) });
      step = "list the blobs of";
    }
  } catch (error) {
    throw storageFailure(
      error,
      step,
      access,
      withEvents
        ? "read and list (sp=rl, or Storage Blob Data Reader)"
        : "list (sp=l, or Storage Blob Data Reader)",
    );
  }
  return found;
}

function parsedOrText(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function listedText(
  deadLetters: (DeadLetter & { event?: unknown })[],
  where: string,
  withEvents: boolean,
): string {
  const count = `${deadLetters.length} dead letter${deadLetters.length === 1 ? "" : "s"} in ${where}.`;
  if (deadLetters.length === 0) return count;
  if (!withEvents) {
    const rows = deadLetters.map((each) => [
      each.blob,
      each.reason ?? "-",
      each.attempts === undefined ? "-" : String(each.attempts),
      each.deadLetteredAt ?? "-",
      each.redelivered ?? "-",
    ]);
    return `${table(["blob", "reason", "attempts", "dead-lettered at", "redelivered"], rows)}\n\n${count}`;
  }
  const blocks = deadLetters.map((each) =>
    [
      each.blob,
      `  event id       ${each.eventId ?? "-"}`,
      `  reason         ${each.reason ?? "-"}`,
      `  attempts       ${each.attempts ?? "-"}`,
      `  dead-lettered  ${each.deadLetteredAt ?? "-"}`,
      `  redelivered    ${each.redelivered ?? "-"}`,
      `  last error     ${shorten(each.lastError ?? "-", 200)}`,
      `  event          ${typeof each.event === "string" ? each.event : JSON.stringify(each.event)}`,
    ].join("\n"),
  );
  return `${blocks.join("\n")}\n${count}`;
}

function waitSeconds(context: CommandContext): number | undefined {
  const raw = stringOption(context.values, "wait", context.usage);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new UsageError("--wait takes a whole number of seconds, 1 or more.", context.usage);
  }
  return Number(raw);
}

const list: CommandSpec = {
  name: "list",
  args: "[<endpointId|name>]",
  positionals: 1,
  summary: "list an endpoint's dead letters (reason, attempts, when) from its container",
  description:
    "Lists the blobs under {endpointName}/ (without an endpoint: all of the container) with the metadata the service writes. Reads the container with your own access, not the service's: a SAS URL (never printed), or DefaultAzureCredential with Storage Blob Data Reader on the container. --show-events reads each blob (sp=rl).",
  calls: "storage",
  options: [CONTAINER_URL, IDENTITY, REASON, FROM, TO, SHOW_EVENTS, WAIT],
  examples: [
    `twin dead-letters list ${EXAMPLE_ENDPOINT} --container-url https://<account>.blob.core.windows.net/<container>`,
    `twin dead-letters list orders --container-url "$CONTAINER_SAS_URL" --reason TtlExpired --output json`,
    "twin dead-letters list unreachable --local --show-events --wait 60",
  ],
  async run(context) {
    const name = endpointName(context);
    const { from, to, reason } = windowOptions(context);
    const selection: DeadLetterSelection = {
      ...(reason && { reason }),
      ...(from && { from: new Date(from) }),
      ...(to && { to: new Date(to) }),
    };
    const wait = waitSeconds(context);
    const withEvents = context.values["show-events"] === true;
    const access = await containerAccess(context);
    const prefix = name === undefined ? "" : `${name}/`;
    // The wall clock only bounds how long a person waits: each check is one listing.
    const deadline = Date.now() + (wait ?? 0) * 1000;
    let found = await readDeadLetters(access, prefix, selection, withEvents);
    while (found.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      found = await readDeadLetters(access, prefix, selection, withEvents);
    }
    const outcome: Outcome = { json: found, text: listedText(found, access.shown, withEvents) };
    if (found.length === 0 && wait !== undefined) {
      return {
        ...outcome,
        text: `no dead letter came within ${wait} s (${outcome.text})`,
        exitCode: EXIT.service,
      };
    }
    return outcome;
  },
};

const redeliver: CommandSpec = {
  name: "redeliver",
  args: "<endpointId|name>",
  positionals: 1,
  summary: "have the service requeue an endpoint's dead letters (all, or by time or reason)",
  description:
    "POST {endpointId}/redeliverDeadLetters: the service reads the dead letters with the endpoint's own secret, requeues them for that endpoint alone, marks each redelivered (nothing is deleted) and skips marked ones unless --force. Prints {requeued, skipped, failed}; exit 1 when some failed (repeat it to retry them). Needs the redeliverDeadLetters action on the endpoint (Contributor).",
  options: [INSTANCE, FROM, TO, REASON, FORCE],
  examples: [
    `twin dead-letters redeliver ${EXAMPLE_ENDPOINT} --local`,
    `twin dead-letters redeliver orders --instance <instance id> --from 2026-11-22T00:00:00Z --reason MaxDeliveryAttemptsExceeded --local`,
  ],
  async run(context) {
    const value = context.positionals[0]?.trim();
    if (value === undefined || value === "")
      throw new UsageError("Give the endpoint's id or name.", context.usage);
    const ref = value.startsWith("/") ? parseEndpointId(value) : undefined;
    if (value.startsWith("/") && ref === undefined)
      throw new UsageError(`Not an endpoint id: ${value}`, context.usage);
    const instance = ref?.twinsInstanceId ?? stringOption(context.values, "instance", context.usage);
    if (instance === undefined) {
      throw new UsageError("Give the endpoint's full id, or its name with --instance.", context.usage);
    }
    const name = ref?.name ?? value;
    const counts = await context.client.endpoints.redeliverDeadLetters(instance, name, {
      ...windowOptions(context),
      ...(context.values.force === true && { force: true }),
    });
    return {
      json: counts,
      text: `requeued ${counts.requeued}, skipped ${counts.skipped}, failed ${counts.failed} (${instance}/endpoints/${name})`,
      ...(counts.failed > 0 && { exitCode: EXIT.service }),
    };
  },
};

export const deadLetters: GroupSpec = {
  name: "dead-letters",
  summary: "an endpoint's undelivered events: list them from its container, have the service redeliver them",
  commands: [list, redeliver],
};
