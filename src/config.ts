import { issuerTenant } from "./auth/token-claims";
import { z } from "./common/zod";
import {
  DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  DEFAULT_STORAGE_HOST_SUFFIXES,
} from "./endpoints/endpoint-allow-list";
import { isUserAssignedIdentityId } from "./endpoints/managed-identity";
import { encryptionKeySetting, previousKeysSetting } from "./secrets/encryption-key-setting";

/**
 * Messages name the setting and say what it must be, as a sentence ("X must be a whole number from
 * 1 to 1000"): every schema below carries its own wording (`error`), never the validator's, and
 * never the value, which may be a secret. loadConfig puts the setting's name in front.
 */

/** "true"/"false"/"1"/"0" as app settings carry them; anything else is a start-up error. */
const booleanSetting = z
  .enum(["true", "false", "1", "0", "TRUE", "FALSE", "True", "False"], { error: "must be true or false" })
  .transform((value) => value === "1" || value.toLowerCase() === "true");

/** A whole number from `min` to `max` (no upper bound when absent), as the message says. */
function wholeNumber(min: number, max?: number, unit = "") {
  const range = max === undefined ? `, ${min} or more` : ` from ${min} to ${max}`;
  const error = `must be a whole number${unit}${range}`;
  const base = z.coerce.number({ error }).int({ error }).min(min, { error });
  return max === undefined ? base : base.max(max, { error });
}

/** Bounds on the quotas: a count past them is a mistake (and the profiles share one partition). */
export const QUOTA_BOUNDS = {
  AUTH_PROFILE_MAX_COUNT: 1000,
  ENDPOINTS_PER_INSTANCE_MAX: 100,
  /** Each route's endpoint is kept in the routes' ledger, one document per instance: it stays small. */
  ROUTES_PER_INSTANCE_MAX: 100,
  /** A profile arrives in one request body: the body limit (MAX_BODY_BYTES of src/http/request-body). */
  AUTH_PROFILE_CONTENT_MAX_BYTES: 1024 * 1024,
} as const;

function httpUrl(error: string) {
  return z.url({ protocol: /^https?$/, error });
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Two DNS labels or more after a leading '.', the last alphabetic: `.net` alone would admit too much. */
const HOST_SUFFIX = /^(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+\.[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** Comma-separated host suffixes such as `.servicebus.windows.net`, blanks and case aside. */
function hostSuffixesSetting(defaults: readonly string[]) {
  return z
    .string()
    .transform((text, ctx) => {
      const suffixes = text.split(",").map((suffix) => suffix.trim().toLowerCase());
      if (suffixes.every((suffix) => HOST_SUFFIX.test(suffix))) return suffixes;
      ctx.addIssue({
        code: "custom",
        message: "must be comma-separated host suffixes of two labels or more, each starting with '.'",
      });
      return z.NEVER;
    })
    .prefault(defaults.join(","));
}

/** Comma-separated values, blanks around them dropped; at least one. */
function listSetting(error: string) {
  return z.string().transform((text, ctx) => {
    const values = text
      .split(",")
      .map((value) => value.trim())
      .filter((value) => value !== "");
    if (values.length > 0) return values;
    ctx.addIssue({ code: "custom", message: error });
    return z.NEVER;
  });
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Comma-separated GUIDs, lower-cased (Entra ids compare case-insensitively). */
function guidListSetting(error: string) {
  return listSetting(error).transform((values, ctx) => {
    const ids = values.map((value) => value.toLowerCase());
    if (ids.every((id) => GUID.test(id))) return ids;
    ctx.addIssue({ code: "custom", message: error });
    return z.NEVER;
  });
}

/** An entry of AUTH_ADMIN_PRINCIPALS: an object id, in the tenant named or (none named) the authority's. */
export interface AdminPrincipalEntry {
  tenantId?: string;
  objectId: string;
}

/** An administrator: an object id in a tenant (GUIDs, lower-cased). */
export interface AdminPrincipal {
  tenantId: string;
  objectId: string;
}

const ADMIN_PRINCIPALS_RULE =
  "must be comma-separated entries, each '{tenant id}/{object id}' or an object id of the authority's tenant (GUIDs)";

/** Comma-separated `{tenant id}/{object id}` or bare object ids, lower-cased. */
const adminPrincipalsSetting = listSetting(ADMIN_PRINCIPALS_RULE).transform((values, ctx) => {
  const entries: AdminPrincipalEntry[] = [];
  for (const value of values) {
    const parts = value.toLowerCase().split("/");
    const objectId = parts.pop() as string;
    const tenantId = parts.pop();
    if (parts.length > 0 || !GUID.test(objectId) || (tenantId !== undefined && !GUID.test(tenantId))) {
      ctx.addIssue({ code: "custom", message: ADMIN_PRINCIPALS_RULE });
      return z.NEVER;
    }
    entries.push(tenantId === undefined ? { objectId } : { tenantId, objectId });
  }
  return entries;
});

/** https, or http to a loopback address (the local issuer). */
function authorityIsSecure(url: URL): boolean {
  return url.protocol === "https:" || LOOPBACK_HOSTS.has(url.hostname);
}

/** An authority for any tenant (`…/common/v2.0`, `…/organizations/v2.0`), whose tokens come from anywhere. */
export function isMultiTenant(authority: string): boolean {
  const tenant = URL.canParse(authority) ? new URL(authority).pathname.split("/")[1] : undefined;
  return tenant !== undefined && ["common", "organizations", "consumers"].includes(tenant.toLowerCase());
}

/** The one tenant an authority names by id (`https://login.microsoftonline.com/{tenant id}/v2.0`), if any. */
export function authorityTenant(authority: string): string | undefined {
  return isMultiTenant(authority) ? undefined : issuerTenant(authority);
}

/**
 * AUTH_ADMIN_PRINCIPALS as tenant and object id: a bare object id is of the authority's tenant.
 * loadConfig has refused bare ids when AUTH_AUTHORITY names no tenant id; were one left, it is nobody.
 */
export function adminPrincipals(
  config: Pick<AppConfig, "AUTH_ADMIN_PRINCIPALS" | "AUTH_AUTHORITY">,
): AdminPrincipal[] {
  const home = config.AUTH_AUTHORITY === undefined ? undefined : authorityTenant(config.AUTH_AUTHORITY);
  return (config.AUTH_ADMIN_PRINCIPALS ?? []).flatMap(({ tenantId = home, objectId }) =>
    tenantId === undefined ? [] : [{ tenantId, objectId }],
  );
}

const PUBLIC_BASE_URL_RULE = "must be an http(s) URL without query, fragment or user information";

/** What a missing required setting should hold, said after "is required". */
const REQUIRED_HINTS: Record<string, string> = {
  COSMOS_ENDPOINT: ": the Cosmos DB account's URL, such as https://<account>.documents.azure.com:443/",
  SECRETS_ENCRYPTION_KEY: ": 32 random bytes in base64 (generate one with: openssl rand -base64 32)",
};

/** What an Entra-mode setting holds, said when it is missing. */
const REQUIRED_WITH_ENTRA = {
  AUTH_AUTHORITY:
    "is required when AUTH_MODE is entra (the default): the token authority, such as https://login.microsoftonline.com/<tenant>/v2.0 (or set AUTH_MODE=keys)",
  AUTH_AUDIENCE:
    "is required when AUTH_MODE is entra (the default): the app registration's client id or App ID URI (or set AUTH_MODE=keys)",
} as const;

/**
 * Every setting the service code reads, in one place. The launcher's own settings (ports, local
 * keys) live in dev/. infra/ sets every setting here except LOCAL_ONLY_SETTINGS, and sets the
 * HOST_STORAGE_SETTINGS with the Functions host's own; a test holds the two in step.
 */
export const configSchema = z
  .object({
    COSMOS_ENDPOINT: httpUrl(
      "must be the Cosmos DB account's URL, such as https://<account>.documents.azure.com:443/",
    ),
    /** Account key (local runs); when absent the service signs in with its managed identity. */
    COSMOS_KEY: z
      .string({ error: "must be the account key" })
      .min(1, { error: "must not be empty" })
      .optional(),
    COSMOS_DATABASE: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-_]{0,254}$/, {
        error:
          "must be a database id of up to 255 letters, digits, '-' and '_', starting with a letter or digit",
      })
      .default("twin-resources"),
    /** Only for the local Cosmos DB server, whose certificate is self-signed; refused for other hosts. */
    COSMOS_DISABLE_TLS_VERIFICATION: booleanSetting.default(false),
    /** How long one Cosmos request may take before the caller is told 503. */
    COSMOS_REQUEST_TIMEOUT_MS: wholeNumber(1, undefined, " of milliseconds").default(5000),
    /**
     * The Functions host's storage account, where the service also keeps its event queues: a
     * connection string (local runs), or the identity-based form Azure uses, the queue service URI
     * (infra/ sets it from the account's endpoints, right in every cloud) or the account name (then
     * https://<account>.queue.core.windows.net, the public cloud's, as the host itself derives it),
     * signed in with the app's managed identity. The first of the three that is set wins.
     */
    AzureWebJobsStorage: z
      .string({ error: "must be a storage connection string" })
      .min(1, { error: "must be a storage connection string" })
      .optional(),
    AzureWebJobsStorage__accountName: z
      .string()
      .regex(/^[a-z0-9]{3,24}$/, {
        error: "must be a storage account name: 3 to 24 lower-case letters and digits",
      })
      .optional(),
    AzureWebJobsStorage__queueServiceUri: httpUrl(
      "must be the queue service's URL, such as https://<account>.queue.core.windows.net",
    ).optional(),
    AUTH_PROFILE_CONTENT_MAX_BYTES: wholeNumber(1, QUOTA_BOUNDS.AUTH_PROFILE_CONTENT_MAX_BYTES).default(4096),
    AUTH_PROFILE_MAX_COUNT: wholeNumber(1, QUOTA_BOUNDS.AUTH_PROFILE_MAX_COUNT).default(10),
    ENDPOINTS_PER_INSTANCE_MAX: wholeNumber(1, QUOTA_BOUNDS.ENDPOINTS_PER_INSTANCE_MAX).default(6),
    /** As Azure Digital Twins, 6 event routes per instance by default. */
    ROUTES_PER_INSTANCE_MAX: wholeNumber(1, QUOTA_BOUNDS.ROUTES_PER_INSTANCE_MAX).default(6),
    /** The storage queue twin events are ingested into; `<name>-poison` holds what cannot be delivered. */
    TWIN_EVENTS_QUEUE: z
      .string()
      .regex(/^[a-z0-9](?!.*--)[a-z0-9-]{1,54}[a-z0-9]$/, {
        error: "must be a lower-case storage queue name of 3 to 56 characters (room for -poison)",
      })
      .default("twin-events"),
    /**
     * How long a busy instance's ingest waits for more requests to share its queue message: at
     * most this much latency, only for an instance written to within this long (event-publisher.ts).
     */
    INGEST_LINGER_MS: wholeNumber(0, 1000, " of milliseconds").default(100),
    /** Delivery attempts per endpoint before an event is dead-lettered. */
    DELIVERY_MAX_ATTEMPTS: wholeNumber(1).default(10),
    /** How long after ingest an event may still be retried before it is dead-lettered. */
    DELIVERY_TTL_SECONDS: wholeNumber(1, undefined, " of seconds").default(86400),
    /** Retry delay before attempt n+1: min(cap, base * 2^(n-1)), with jitter. */
    DELIVERY_BACKOFF_BASE_SECONDS: wholeNumber(1, undefined, " of seconds").default(10),
    DELIVERY_BACKOFF_CAP_SECONDS: wholeNumber(1, undefined, " of seconds").default(3600),
    /** How long one Service Bus send may take before it counts as failed. */
    DELIVERY_SEND_TIMEOUT_MS: wholeNumber(1, undefined, " of milliseconds").default(15000),
    /**
     * How long one token request to the app's managed identity endpoint may take (identity-based
     * endpoints' sends, dead letters and redelivery) before it fails and is tried again later.
     */
    IDENTITY_TOKEN_TIMEOUT_MS: wholeNumber(1, 600_000, " of milliseconds").default(10000),
    /** How long an instance's endpoint list is cached; a deleted endpoint stops receiving within it. */
    ENDPOINT_CACHE_SECONDS: wholeNumber(0, undefined, " of seconds").default(30),
    /** Hosts endpoints may name: a Service Bus Endpoint, a dead-letter URL (https), on a label boundary. */
    SERVICEBUS_HOST_SUFFIXES: hostSuffixesSetting(DEFAULT_SERVICEBUS_HOST_SUFFIXES),
    STORAGE_HOST_SUFFIXES: hostSuffixesSetting(DEFAULT_STORAGE_HOST_SUFFIXES),
    /** Admits loopback endpoints too (the local stand-ins, over plain AMQP/http): local runs only. */
    ALLOW_LOOPBACK_ENDPOINTS: booleanSetting.default(false),
    /**
     * The user-assigned identities attached to the app that identity-based endpoints may name
     * (comma-separated ARM ids): never the app's runtime identity, whose roles reach the service's
     * own storage. The system-assigned identity needs no listing.
     */
    ENDPOINT_USER_ASSIGNED_IDENTITIES: z
      .string()
      .transform((text, ctx) => {
        const ids = text
          .split(",")
          .map((id) => id.trim())
          .filter((id) => id !== "");
        if (ids.every(isUserAssignedIdentityId)) return ids;
        ctx.addIssue({
          code: "custom",
          message:
            "must be comma-separated ARM ids of user-assigned identities (/subscriptions/…/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name})",
        });
        return z.NEVER;
      })
      .prefault(""),
    /**
     * Where clients reach the service (a custom domain, API Management), for the links it hands
     * out: nextLink and the OpenAPI server. Absent: https://WEBSITE_HOSTNAME, which Azure sets.
     */
    PUBLIC_BASE_URL: httpUrl(PUBLIC_BASE_URL_RULE)
      .refine((value) => {
        // Not a URL at all: z.url has said so already.
        if (!URL.canParse(value)) return true;
        const url = new URL(value);
        return url.search === "" && url.hash === "" && url.username === "" && url.password === "";
      }, PUBLIC_BASE_URL_RULE)
      .optional(),

    /**
     * Who may call: `entra` (Entra ID bearer tokens judged by role assignments, the default) or
     * `keys` (the Functions host's function and master keys, as before).
     */
    AUTH_MODE: z.enum(["entra", "keys"], { error: "must be entra or keys" }).default("entra"),
    /** The token issuer's authority, e.g. https://login.microsoftonline.com/{tenant}/v2.0 (OpenID discovery). */
    AUTH_AUTHORITY: httpUrl(
      "must be the authority's URL, such as https://login.microsoftonline.com/<tenant>/v2.0",
    )
      .refine((value) => !URL.canParse(value) || authorityIsSecure(new URL(value)), {
        error: "must be https (plain http only to a loopback address)",
      })
      .optional(),
    /** The audiences a token may be for: the app's client id and/or its App ID URI, comma-separated. */
    AUTH_AUDIENCE: listSetting(
      "must be the app's client id or App ID URI (comma-separated for several)",
    ).optional(),
    /** Tenants whose tokens are taken (GUIDs); absent: the authority's own tenant. */
    AUTH_ALLOWED_TENANTS: guidListSetting("must be tenant ids (GUIDs), comma-separated").optional(),
    /**
     * Principals that hold Owner at `/` without an assignment (bootstrap): `{tenant id}/{object id}`,
     * or a bare object id of the authority's own tenant; comma-separated.
     */
    AUTH_ADMIN_PRINCIPALS: adminPrincipalsSetting.optional(),
    /** How long a principal's role assignments are cached: a revoked assignment stops working within it. */
    AUTH_CACHE_SECONDS: wholeNumber(0, 300, " of seconds").default(30),

    /**
     * Seals endpoint secrets at rest (AES-256-GCM). In Azure a Key Vault reference: while the
     * platform has not resolved it, the setting is pending rather than an error (what needs the key
     * answers 503, /health says why; src/secrets/secret-keys.ts), so that the rest of the app runs.
     */
    SECRETS_ENCRYPTION_KEY: encryptionKeySetting,
    /** Keys used before a rotation, still accepted for opening what they sealed. */
    SECRETS_ENCRYPTION_PREVIOUS_KEYS: previousKeysSetting.optional(),
  })
  .refine(
    (config) =>
      Boolean(
        config.AzureWebJobsStorage ||
          config.AzureWebJobsStorage__accountName ||
          config.AzureWebJobsStorage__queueServiceUri,
      ),
    {
      path: ["AzureWebJobsStorage"],
      message:
        "is required (a connection string, or AzureWebJobsStorage__queueServiceUri or AzureWebJobsStorage__accountName for managed identity)",
      // Reported alongside the other problems, not only once every field is valid.
      when: () => true,
    },
  )
  .superRefine((config, ctx) => {
    if (config.AUTH_MODE === "entra") {
      for (const name of ["AUTH_AUTHORITY", "AUTH_AUDIENCE"] as const) {
        if (config[name] === undefined)
          ctx.addIssue({ code: "custom", path: [name], message: REQUIRED_WITH_ENTRA[name] });
      }
      if (
        config.AUTH_ALLOWED_TENANTS === undefined &&
        config.AUTH_AUTHORITY &&
        isMultiTenant(config.AUTH_AUTHORITY)
      )
        ctx.addIssue({
          code: "custom",
          path: ["AUTH_ALLOWED_TENANTS"],
          message:
            "is required when AUTH_AUTHORITY names no single tenant (common, organizations): the tenant ids to accept",
        });
      if (
        config.AUTH_AUTHORITY &&
        authorityTenant(config.AUTH_AUTHORITY) === undefined &&
        config.AUTH_ADMIN_PRINCIPALS?.some((entry) => entry.tenantId === undefined)
      )
        ctx.addIssue({
          code: "custom",
          path: ["AUTH_ADMIN_PRINCIPALS"],
          message: isMultiTenant(config.AUTH_AUTHORITY)
            ? "must name each principal's tenant ('{tenant id}/{object id}') when AUTH_AUTHORITY names no single tenant (common, organizations): a bare object id means the authority's tenant"
            : "must name each principal's tenant ('{tenant id}/{object id}') when AUTH_AUTHORITY names its tenant by no tenant id (GUID): a bare object id means the authority's tenant",
        });
    }
    if (
      config.COSMOS_DISABLE_TLS_VERIFICATION &&
      !LOOPBACK_HOSTS.has(new URL(config.COSMOS_ENDPOINT).hostname)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["COSMOS_DISABLE_TLS_VERIFICATION"],
        message: "may only be true when COSMOS_ENDPOINT is a loopback address",
      });
    }
  });

export type AppConfig = z.infer<typeof configSchema>;

/** Settings for local runs only: Azure signs in with the app's identity and reads no keys. */
export const LOCAL_ONLY_SETTINGS = [
  "COSMOS_KEY",
  "COSMOS_DISABLE_TLS_VERIFICATION",
  "AzureWebJobsStorage",
  // Set by hand for the length of a key rotation (see infra/README.md).
  "SECRETS_ENCRYPTION_PREVIOUS_KEYS",
  // In Azure, loopback is the app itself: never admitted there (a test holds infra/ to it).
  "ALLOW_LOOPBACK_ENDPOINTS",
] as const;

/**
 * Identity-based host storage settings the service reads too. infra/ sets the queue service URI
 * (with the blob and table ones, which only the host reads) and not the account name: the host
 * would build public-cloud URIs from the name, and some of its storage clients prefer the name
 * when both are set.
 */
export const HOST_STORAGE_SETTINGS = [
  "AzureWebJobsStorage__accountName",
  "AzureWebJobsStorage__queueServiceUri",
] as const;

export class ConfigError extends Error {
  /** One sentence per problem, each naming its setting: "AUTH_PROFILE_MAX_COUNT must be …". */
  constructor(readonly problems: string[]) {
    super(
      `${problems.length === 1 ? "A setting needs" : "Some settings need"} fixing (in local.settings.json, the environment, or the app settings in Azure):\n${problems
        .map((problem) => `  - ${problem}.`)
        .join("\n")}`,
    );
    this.name = "ConfigError";
  }
}

/** Reads and validates the settings; throws a ConfigError naming every bad setting (never its value). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(configSchema.shape);
  const input = Object.fromEntries(
    known.filter((name) => env[name] !== undefined && env[name] !== "").map((name) => [name, env[name]]),
  );
  const result = configSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        // zod leaves `input` off issues (so no value can leak into a message): look the value up.
        const name = String(issue.path[0] ?? "");
        if (issue.code === "invalid_type" && input[name] === undefined) {
          return `${name} is required${REQUIRED_HINTS[name] ?? ""}`;
        }
        return `${name || "The settings"} ${issue.message}`;
      }),
    );
  }
  return result.data;
}
