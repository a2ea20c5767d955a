import { randomUUID } from "node:crypto";
import { CLUSTER_ASSESSMENT_PATH } from "../../src/common/arm-path";
import {
  parseEndpointId,
  parseEventRouteId,
  parseRoleAssignmentId,
  parseTwinsInstanceId,
} from "../resource-paths";
import type {
  AuthenticationProfile,
  AuthenticationProfileInput,
  CloudEvent,
  ClusterAssessment,
  EventRoute,
  EventRouteInput,
  QueueEndpoint,
  QueueEndpointInput,
  RoleAssignment,
  RoleAssignmentInput,
} from "../types";
import { type OptionSpec, stringOption, UsageError } from "./args";
import type { CommandContext, GroupSpec, Outcome } from "./command-spec";
import { DEAD_LETTER_OPTIONS, deadLetters } from "./dead-letter-commands";
import { cell, fields, shorten, table } from "./output";
import { POISON_OPTIONS, poison } from "./poison-commands";

/**
 * The command table of `twin`: groups of commands, each with its arguments, options, help and
 * what it does with the client. A new command is one more entry (a group's `commands`).
 */

export type { CommandContext, CommandSpec, GroupSpec, Outcome } from "./command-spec";

const INSTANCE_FORM =
  "/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.DigitalTwins/digitalTwinsInstances/<name>";
const EXAMPLE_INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/factory-twins";

const FILE: OptionSpec = {
  name: "file",
  type: "string",
  short: "f",
  value: "path",
  description: "the resource as JSON (what `show --output json` prints will do); - reads standard input",
};
const NAME: OptionSpec = {
  name: "name",
  type: "string",
  value: "name",
  description: "the name to write; default: the file's name (or id)",
};
const INSTANCE: OptionSpec = {
  name: "instance",
  type: "string",
  value: "instance id",
  description: `the digital-twins instance, ${INSTANCE_FORM}`,
};
const IGNORE_NOT_FOUND: OptionSpec = {
  name: "ignore-not-found",
  type: "boolean",
  description: "exit 0 when there is nothing to delete",
};
const AT: OptionSpec = {
  name: "at",
  type: "string",
  value: "scope",
  description: "the assignments' scope: /, /authenticationProfiles[/<name>] or an ARM resource id",
};
const SUBSCRIPTION: OptionSpec = {
  name: "subscription",
  type: "string",
  value: "id",
  description: "the subscription; default: AZURE_SUBSCRIPTION_ID",
};
const RESOURCE_GROUP: OptionSpec = {
  name: "resource-group",
  type: "string",
  short: "g",
  value: "name",
  description: "the resource group of the assessment project",
};
const PROJECT: OptionSpec = {
  name: "project",
  type: "string",
  value: "name",
  description: "the assessment project",
};

const FILTER: OptionSpec = {
  name: "filter",
  type: "string",
  value: "filter",
  description: "the route filter to try, as a route's filter is written",
};
const FILTER_FILE: OptionSpec = {
  name: "filter-file",
  type: "string",
  value: "path",
  description: "the filter from a file instead (its text, trimmed); - reads standard input",
};
const EVENT: OptionSpec = {
  name: "event",
  type: "string",
  value: "path",
  description: "the CloudEvent to try it on, as JSON (what `events post` takes); - reads standard input",
};
const EXPECT_MATCH: OptionSpec = {
  name: "expect-match",
  type: "boolean",
  description: "exit 1 when the filter does not match the event",
};

/** Every option some command takes: a first look at a command line knows their values from arguments. */
export const COMMAND_OPTIONS: OptionSpec[] = [
  FILE,
  NAME,
  INSTANCE,
  IGNORE_NOT_FOUND,
  AT,
  SUBSCRIPTION,
  RESOURCE_GROUP,
  PROJECT,
  FILTER,
  FILTER_FILE,
  EVENT,
  EXPECT_MATCH,
  ...DEAD_LETTER_OPTIONS,
  ...POISON_OPTIONS,
];

// --- helpers -----------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function objectBody(value: unknown, what: string, usage: string): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`The file must hold one ${what} as a JSON object.`, usage);
  }
  return value as Json;
}

function required(context: CommandContext, name: string): string {
  const value = stringOption(context.values, name, context.usage);
  if (value === undefined) throw new UsageError(`--${name} is required.`, context.usage);
  return value;
}

function argument(context: CommandContext, what: string): string {
  const value = context.positionals[0];
  if (value === undefined || value.trim() === "") {
    throw new UsageError(`Give the ${what}.`, context.usage);
  }
  return value.trim();
}

function instanceOption(context: CommandContext, fallback?: unknown): string {
  const raw =
    stringOption(context.values, "instance", context.usage) ??
    (typeof fallback === "string" ? fallback : undefined);
  if (raw === undefined) throw new UsageError("--instance is required.", context.usage);
  if (parseTwinsInstanceId(raw) === undefined) {
    throw new UsageError(`--instance must be an instance id, ${INSTANCE_FORM}: ${raw}`, context.usage);
  }
  return raw;
}

/** `<name>` with --instance, or the child's full id. */
function childRef(
  context: CommandContext,
  what: string,
  parse: (id: string) => { twinsInstanceId: string; name: string } | undefined,
): { instance: string; name: string } {
  const value = argument(context, `${what}'s name or id`);
  if (value.startsWith("/")) {
    const parsed = parse(value);
    if (parsed === undefined) throw new UsageError(`Not an ${what} id: ${value}`, context.usage);
    return { instance: parsed.twinsInstanceId, name: parsed.name };
  }
  return { instance: instanceOption(context), name: value };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

function listed<T>(items: T[], columns: string[], row: (item: T) => string[], none: string): Outcome {
  return { json: items, text: items.length === 0 ? none : table(columns, items.map(row)) };
}

function shown(value: unknown): Outcome {
  return { json: value, text: fields(value) };
}

function written(value: { id: string; created: boolean }, what: string): Outcome {
  return {
    json: value,
    text: `${value.created ? "Created" : "Updated"} ${what} ${value.id}\n\n${fields(value)}`,
  };
}

function deleted(context: CommandContext, done: boolean, id: string, what: string): Outcome {
  if (done) return { json: { id, deleted: true }, text: `Deleted ${what} ${id}` };
  const ignore = context.values["ignore-not-found"] === true;
  return {
    json: { id, deleted: false },
    text: `No ${what} ${id}: nothing to delete`,
    exitCode: ignore ? 0 : 4,
  };
}

/** Drops what the service sets (id, etag, systemData, …) from a resource as `show` printed it. */
function without(body: Json, names: string[]): Json {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !names.includes(key)));
}

const SERVER_FIELDS = ["id", "name", "type", "etag", "eTag", "created", "systemData"];

function lastModified(item: { systemData?: { lastModifiedAt?: string } }): string {
  return item.systemData?.lastModifiedAt ?? "";
}

/** Where a key-based endpoint sends, from its (masked) connection string: sb://host/topic. */
function keyBasedTarget(connectionString: string): string {
  const part = (name: string) =>
    new RegExp(`(?:^|;)${name}=([^;]*)`, "i").exec(connectionString)?.[1]?.trim() ?? "";
  const host = part("Endpoint").replace(/\/*$/, "/");
  return `${host}${part("EntityPath")}`;
}

function endpointTarget(endpoint: QueueEndpoint): string {
  return endpoint.authenticationType === "IdentityBased"
    ? `${endpoint.endpointUri.replace(/\/*$/, "/")}${endpoint.entityPath}`
    : keyBasedTarget(endpoint.queuePrimaryConnectionString);
}

function endpointDeadLetter(endpoint: QueueEndpoint): string {
  const location =
    endpoint.authenticationType === "IdentityBased"
      ? endpoint.deadLetterUri
      : endpoint.deadLetterStorageSecret;
  return location === undefined ? "-" : (location.split("?")[0] ?? "");
}

// --- profiles ----------------------------------------------------------------------------------

const profiles: GroupSpec = {
  name: "profiles",
  summary: "authentication profiles",
  commands: [
    {
      name: "list",
      summary: "list the profiles",
      options: [],
      examples: ["twin profiles list --local", "twin profiles list --local --output json"],
      async run({ client }) {
        const items = await all(client.profiles.list());
        return listed<AuthenticationProfile>(
          items,
          ["name", "content", "last modified"],
          (item) => [
            item.authenticationProfileName,
            shorten(item.authenticationProfileContent),
            lastModified(item),
          ],
          "No profiles.",
        );
      },
    },
    {
      name: "show",
      args: "<name>",
      positionals: 1,
      summary: "show a profile",
      options: [],
      examples: ["twin profiles show warehouse-sso --local"],
      async run(context) {
        return shown(await context.client.profiles.get(argument(context, "profile's name")));
      },
    },
    {
      name: "apply",
      summary: "create or replace a profile from a file",
      description:
        'The file: {"authenticationProfileName": "<name>", "authenticationProfileContent": "<JSON text>"}; the content may also be a JSON object, sent as its text.',
      options: [FILE, NAME],
      examples: ["twin profiles apply --file warehouse-sso.json --local"],
      async run(context) {
        const body = objectBody(await context.readJson(required(context, "file")), "profile", context.usage);
        const fromFile = body.authenticationProfileName ?? body.name ?? body.id;
        const name =
          stringOption(context.values, "name", context.usage) ??
          (typeof fromFile === "string" ? fromFile : undefined);
        if (name === undefined)
          throw new UsageError("Give --name, or authenticationProfileName in the file.", context.usage);
        const content = body.authenticationProfileContent;
        const input: AuthenticationProfileInput = {
          authenticationProfileContent: typeof content === "string" ? content : JSON.stringify(content ?? {}),
        };
        return written(await context.client.profiles.put(name, input), "profile");
      },
    },
    {
      name: "delete",
      args: "<name>",
      positionals: 1,
      summary: "delete a profile",
      options: [IGNORE_NOT_FOUND],
      examples: ["twin profiles delete warehouse-sso --local"],
      async run(context) {
        const name = argument(context, "profile's name");
        return deleted(context, await context.client.profiles.delete(name), name, "profile");
      },
    },
  ],
};

// --- endpoints ---------------------------------------------------------------------------------

const endpoints: GroupSpec = {
  name: "endpoints",
  summary: "queue endpoints of a digital-twins instance, key-based and identity-based",
  commands: [
    {
      name: "list",
      summary: "list an instance's endpoints",
      options: [INSTANCE],
      examples: [`twin endpoints list --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const items = await all(context.client.endpoints.list(instanceOption(context)));
        return listed<QueueEndpoint>(
          items,
          ["name", "kind", "target", "dead letters"],
          (item) => [item.name, item.authenticationType, endpointTarget(item), endpointDeadLetter(item)],
          "No endpoints.",
        );
      },
    },
    {
      name: "show",
      args: "<name|id>",
      positionals: 1,
      summary: "show an endpoint (connection strings and SAS come back masked)",
      options: [INSTANCE],
      examples: [
        `twin endpoints show orders --instance ${EXAMPLE_INSTANCE} --local`,
        `twin endpoints show ${EXAMPLE_INSTANCE}/endpoints/orders --local`,
      ],
      async run(context) {
        const { instance, name } = childRef(context, "endpoint", parseEndpointId);
        return shown(await context.client.endpoints.get(instance, name));
      },
    },
    {
      name: "apply",
      summary: "create or replace an endpoint from a file",
      description:
        'Key-based: {"name", "queuePrimaryConnectionString", "queueSecondaryConnectionString", "deadLetterStorageSecret"?}; identity-based: {"name", "authenticationType": "IdentityBased", "endpointUri", "entityPath", "deadLetterUri"?, "identity"?}. The instance: --instance, or the file\'s twinsInstanceId or id.',
      options: [FILE, INSTANCE, NAME],
      examples: [`twin endpoints apply --file orders.json --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const body = objectBody(await context.readJson(required(context, "file")), "endpoint", context.usage);
        const fromId = typeof body.id === "string" ? parseEndpointId(body.id) : undefined;
        const instance = instanceOption(context, body.twinsInstanceId ?? fromId?.twinsInstanceId);
        const fileName = typeof body.name === "string" ? body.name : fromId?.name;
        const name = stringOption(context.values, "name", context.usage) ?? fileName;
        if (name === undefined) throw new UsageError("Give --name, or name in the file.", context.usage);
        const input = without(body, [...SERVER_FIELDS, "twinsInstanceId"]) as unknown as QueueEndpointInput;
        return written(await context.client.endpoints.put(instance, name, input), "endpoint");
      },
    },
    {
      name: "delete",
      args: "<name|id>",
      positionals: 1,
      summary: "delete an endpoint (routes that name it must go first)",
      options: [INSTANCE, IGNORE_NOT_FOUND],
      examples: [`twin endpoints delete orders --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const { instance, name } = childRef(context, "endpoint", parseEndpointId);
        const done = await context.client.endpoints.delete(instance, name);
        return deleted(context, done, `${instance}/endpoints/${name}`, "endpoint");
      },
    },
  ],
};

// --- routes ------------------------------------------------------------------------------------

const routes: GroupSpec = {
  name: "routes",
  summary: "event routes of a digital-twins instance",
  commands: [
    {
      name: "list",
      summary: "list an instance's event routes",
      options: [INSTANCE],
      examples: [`twin routes list --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const items = await all(context.client.eventRoutes.list(instanceOption(context)));
        return listed<EventRoute>(
          items,
          ["name", "endpoint", "filter"],
          (item) => [item.name, item.endpointName, item.filter],
          "No event routes.",
        );
      },
    },
    {
      name: "show",
      args: "<name|id>",
      positionals: 1,
      summary: "show an event route",
      options: [INSTANCE],
      examples: [`twin routes show hot-machines --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const { instance, name } = childRef(context, "event route", parseEventRouteId);
        return shown(await context.client.eventRoutes.get(instance, name));
      },
    },
    {
      name: "apply",
      summary: "create or replace an event route from a file",
      description:
        'The file: {"name", "endpointName", "filter"}; the endpoint must exist. The instance: --instance, or the file\'s id.',
      options: [FILE, INSTANCE, NAME],
      examples: [`twin routes apply --file hot-machines.json --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const body = objectBody(
          await context.readJson(required(context, "file")),
          "event route",
          context.usage,
        );
        const fromId = typeof body.id === "string" ? parseEventRouteId(body.id) : undefined;
        const instance = instanceOption(context, fromId?.twinsInstanceId);
        const fileName = typeof body.name === "string" ? body.name : fromId?.name;
        const name = stringOption(context.values, "name", context.usage) ?? fileName;
        if (name === undefined) throw new UsageError("Give --name, or name in the file.", context.usage);
        const input = without(body, SERVER_FIELDS) as unknown as EventRouteInput;
        return written(await context.client.eventRoutes.put(instance, name, input), "event route");
      },
    },
    {
      name: "test",
      summary: "try a filter on an event: whether a route with it would deliver the event",
      description:
        "Nothing is written or sent. Prints `matches`, or `does not match: <reason>` (the comparison that decided it). " +
        "The filter: --filter, or --filter-file. Exit 0 when the test ran, whether or not the filter matches " +
        "(read the verdict); with --expect-match, exit 1 when it does not match. A filter that does not parse " +
        "is refused as a route's would be (exit 1, the parser's reason, target filter); an event the service " +
        "would not take is refused with its target under event.",
      options: [INSTANCE, FILTER, FILTER_FILE, EVENT, EXPECT_MATCH],
      examples: [
        `twin routes test --instance ${EXAMPLE_INSTANCE} --filter "type = 'Twin.Update' AND $body.temperature > 30" --event event.json --local`,
        `twin routes test --instance ${EXAMPLE_INSTANCE} --filter-file hot.filter --event - --expect-match --local < event.json`,
      ],
      async run(context) {
        const instance = instanceOption(context);
        const inline = stringOption(context.values, "filter", context.usage);
        const filterFile = stringOption(context.values, "filter-file", context.usage);
        if (inline !== undefined && filterFile !== undefined) {
          throw new UsageError("Give --filter or --filter-file, not both.", context.usage);
        }
        if (inline === undefined && filterFile === undefined) {
          throw new UsageError("--filter (or --filter-file) is required.", context.usage);
        }
        const eventFile = required(context, "event");
        if (filterFile === "-" && eventFile === "-") {
          throw new UsageError(
            "Only one of --filter-file and --event can read standard input.",
            context.usage,
          );
        }
        const filter = inline ?? (await context.readText(filterFile as string)).trim();
        if (filter === "") throw new UsageError(`${filterFile} holds no filter.`, context.usage);
        const event = objectBody(await context.readJson(eventFile), "CloudEvent", context.usage);
        const result = await context.client.eventRoutes.testFilter(instance, {
          filter,
          event: event as unknown as CloudEvent,
        });
        return {
          json: result,
          text: result.matches ? "matches" : `does not match: ${result.reason ?? ""}`.trimEnd(),
          ...(!result.matches && context.values["expect-match"] === true && { exitCode: 1 }),
        };
      },
    },
    {
      name: "delete",
      args: "<name|id>",
      positionals: 1,
      summary: "delete an event route",
      options: [INSTANCE, IGNORE_NOT_FOUND],
      examples: [`twin routes delete hot-machines --instance ${EXAMPLE_INSTANCE} --local`],
      async run(context) {
        const { instance, name } = childRef(context, "event route", parseEventRouteId);
        const done = await context.client.eventRoutes.delete(instance, name);
        return deleted(context, done, `${instance}/eventRoutes/${name}`, "event route");
      },
    },
  ],
};

// --- role assignments --------------------------------------------------------------------------

function assignmentRef(context: CommandContext): { scope: string; name: string } {
  const value = argument(context, "assignment's name or id");
  if (value.includes("/")) {
    const parsed = parseRoleAssignmentId(value);
    if (parsed === undefined) throw new UsageError(`Not a role assignment id: ${value}`, context.usage);
    return parsed;
  }
  return { scope: scopeOption(context), name: value };
}

function scopeOption(context: CommandContext, fallback?: unknown): string {
  const scope =
    stringOption(context.values, "at", context.usage) ??
    (typeof fallback === "string" ? fallback : undefined);
  if (scope === undefined) throw new UsageError("--at <scope> is required.", context.usage);
  if (!scope.startsWith("/")) throw new UsageError(`--at must start with '/': ${scope}`, context.usage);
  return scope;
}

const roleAssignments: GroupSpec = {
  name: "role-assignments",
  summary: "roles held by principals at scopes",
  commands: [
    {
      name: "list",
      summary: "list the assignments that hold at a scope (those at it and above it)",
      options: [AT],
      examples: [
        `twin role-assignments list --at ${EXAMPLE_INSTANCE} --local`,
        "twin role-assignments list --at / --local",
      ],
      async run(context) {
        const items = await all(context.client.roleAssignments.list(scopeOption(context)));
        return listed<RoleAssignment>(
          items,
          ["name", "role", "principal", "type", "scope"],
          (item) => [item.name, item.roleDefinitionName, item.principalId, item.principalType, item.scope],
          "No role assignments.",
        );
      },
    },
    {
      name: "show",
      args: "<name|id>",
      positionals: 1,
      summary: "show a role assignment",
      options: [AT],
      examples: ["twin role-assignments show 3f2a…-guid --at /authenticationProfiles --local"],
      async run(context) {
        const { scope, name } = assignmentRef(context);
        return shown(await context.client.roleAssignments.get(scope, name));
      },
    },
    {
      name: "apply",
      summary: "create a role assignment from a file (an assignment is never changed)",
      description:
        'The file: {"principalId", "roleDefinitionName" (or "roleDefinitionId"), "principalType"?, "scope"?, "name"?}; the name defaults to a new GUID, the scope to the file\'s. Takes Owner at the scope (the master key under AUTH_MODE=keys).',
      options: [FILE, AT, NAME],
      masterKey: true,
      examples: [
        "twin role-assignments apply --file pipeline-sender.json --at /authenticationProfiles --local",
      ],
      async run(context) {
        const body = objectBody(
          await context.readJson(required(context, "file")),
          "role assignment",
          context.usage,
        );
        const fromId = typeof body.id === "string" ? parseRoleAssignmentId(body.id) : undefined;
        const scope = scopeOption(context, body.scope ?? fromId?.scope);
        const fileName = typeof body.name === "string" ? body.name : fromId?.name;
        const name = stringOption(context.values, "name", context.usage) ?? fileName ?? randomUUID();
        const input = without(body, [...SERVER_FIELDS, "scope"]);
        // As `show` prints it, an assignment has both; the service takes one.
        if (input.roleDefinitionId !== undefined && input.roleDefinitionName !== undefined) {
          delete input.roleDefinitionName;
        }
        const result = await context.client.roleAssignments.create(
          scope,
          name,
          input as unknown as RoleAssignmentInput,
        );
        return {
          json: result,
          text: `${result.created ? "Created" : "Found, unchanged,"} role assignment ${result.id}\n\n${fields(result)}`,
        };
      },
    },
    {
      name: "delete",
      args: "<name|id>",
      positionals: 1,
      summary: "delete a role assignment",
      options: [AT, IGNORE_NOT_FOUND],
      masterKey: true,
      examples: ["twin role-assignments delete <guid> --at /authenticationProfiles --local"],
      async run(context) {
        const { scope, name } = assignmentRef(context);
        const done = await context.client.roleAssignments.delete(scope, name);
        const id = `${scope === "/" ? "" : scope.replace(/\/$/, "")}/providers/Microsoft.Authorization/roleAssignments/${name}`;
        return deleted(context, done, id, "role assignment");
      },
    },
  ],
};

// --- events ------------------------------------------------------------------------------------

const events: GroupSpec = {
  name: "events",
  summary: "CloudEvents for a digital-twins instance's endpoints",
  commands: [
    {
      name: "post",
      summary: "post one event (a JSON object) or a batch (an array) from a file or standard input",
      options: [INSTANCE, { ...FILE, description: "the event or events as JSON; - reads standard input" }],
      examples: [
        `twin events post --instance ${EXAMPLE_INSTANCE} --file event.json --local`,
        `echo '{"id":"evt-1","source":"/factory","specversion":"1.0","type":"Twin.Update"}' | twin events post --instance ${EXAMPLE_INSTANCE} --file - --local`,
      ],
      async run(context) {
        const instance = instanceOption(context);
        const body = await context.readJson(required(context, "file"));
        if (body === null || typeof body !== "object") {
          throw new UsageError(
            "The file must hold a CloudEvent (a JSON object) or an array of them.",
            context.usage,
          );
        }
        const result = await context.client.events.ingest(instance, body as never);
        return { json: result, text: `Accepted ${result.accepted} event${result.accepted === 1 ? "" : "s"}` };
      },
    },
  ],
};

// --- assessments -------------------------------------------------------------------------------

function projectOptions(context: CommandContext) {
  const subscriptionId =
    stringOption(context.values, "subscription", context.usage) ??
    (process.env.AZURE_SUBSCRIPTION_ID?.trim() || undefined);
  if (subscriptionId === undefined) {
    throw new UsageError("--subscription is required (or AZURE_SUBSCRIPTION_ID).", context.usage);
  }
  return {
    subscriptionId,
    resourceGroupName: required(context, "resource-group"),
    projectName: required(context, "project"),
  };
}

const ASSESSMENT_OPTIONS = [SUBSCRIPTION, RESOURCE_GROUP, PROJECT];

const assessments: GroupSpec = {
  name: "assessments",
  summary: "cluster assessments (read-only)",
  commands: [
    {
      name: "list",
      summary: "list a project's cluster assessments",
      options: ASSESSMENT_OPTIONS,
      examples: [
        "twin assessments list --subscription 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f -g rg-migrate-prod --project contoso-dc1 --local",
      ],
      async run(context) {
        const items = await all(context.client.assessments.list(projectOptions(context)));
        return listed<ClusterAssessment>(
          items,
          ["name", "state", "status", "monthly cost", "machines"],
          (item) => [
            item.name,
            item.provisioningState,
            item.details.status,
            `${cell(item.details.totalMonthlyCost)} ${item.settings.currency}`,
            cell(item.details.machineCount),
          ],
          "No assessments.",
        );
      },
    },
    {
      name: "show",
      args: "<name|id>",
      positionals: 1,
      summary: "show a cluster assessment",
      options: ASSESSMENT_OPTIONS,
      examples: [
        "twin assessments show web-tier-aks --subscription 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f -g rg-migrate-prod --project contoso-dc1 --local",
      ],
      async run(context) {
        const value = argument(context, "assessment's name or id");
        if (value.startsWith("/")) {
          const ref = CLUSTER_ASSESSMENT_PATH.parse(value);
          if (ref === undefined) throw new UsageError(`Not a cluster assessment id: ${value}`, context.usage);
          return shown(await context.client.assessments.get({ ...ref }));
        }
        return shown(
          await context.client.assessments.get({ ...projectOptions(context), assessmentName: value }),
        );
      },
    },
  ],
};

export const GROUPS: GroupSpec[] = [
  profiles,
  endpoints,
  routes,
  roleAssignments,
  events,
  deadLetters,
  poison,
  assessments,
];
