import { z } from "zod";
import {
  DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  DEFAULT_STORAGE_HOST_SUFFIXES,
} from "./endpoints/endpoint-allow-list";
import { encryptionKeySetting, previousKeysSetting } from "./secrets/encryption-key-setting";

/** "true"/"false"/"1"/"0" as app settings carry them; anything else is a start-up error. */
const booleanSetting = z
  .enum(["true", "false", "1", "0", "TRUE", "FALSE", "True", "False"])
  .transform((value) => value === "1" || value.toLowerCase() === "true");

const positiveIntSetting = z.coerce.number().int().positive();

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

/**
 * Every setting the service code reads, in one place. The launcher's own settings (ports, local
 * keys) live in dev/. infra/ sets every setting here except LOCAL_ONLY_SETTINGS, and sets the
 * HOST_STORAGE_SETTINGS with the Functions host's own; a test holds the two in step.
 */
export const configSchema = z
  .object({
    COSMOS_ENDPOINT: z.url({ protocol: /^https?$/ }),
    /** Account key (local runs); when absent the service signs in with its managed identity. */
    COSMOS_KEY: z.string().min(1).optional(),
    COSMOS_DATABASE: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-_]{0,254}$/, "a database id of letters, digits, '-' and '_'")
      .default("twin-resources"),
    /** Only for the local Cosmos DB server, whose certificate is self-signed; refused for other hosts. */
    COSMOS_DISABLE_TLS_VERIFICATION: booleanSetting.default(false),
    /** How long one Cosmos request may take before the caller is told 503. */
    COSMOS_REQUEST_TIMEOUT_MS: positiveIntSetting.default(5000),
    /**
     * The Functions host's storage account, where the service also keeps its event queues: a
     * connection string (local runs), or the identity-based form Azure uses, the account name
     * (or the queue service URI) signed in with the app's managed identity.
     */
    AzureWebJobsStorage: z.string().min(1).optional(),
    AzureWebJobsStorage__accountName: z
      .string()
      .regex(/^[a-z0-9]{3,24}$/, "must be a storage account name")
      .optional(),
    AzureWebJobsStorage__queueServiceUri: z.url({ protocol: /^https?$/ }).optional(),
    AUTH_PROFILE_CONTENT_MAX_BYTES: positiveIntSetting.default(4096),
    AUTH_PROFILE_MAX_COUNT: positiveIntSetting.default(10),
    ENDPOINTS_PER_INSTANCE_MAX: positiveIntSetting.default(6),
    /** The storage queue twin events are ingested into; `<name>-poison` holds what cannot be delivered. */
    TWIN_EVENTS_QUEUE: z
      .string()
      .regex(
        /^[a-z0-9](?!.*--)[a-z0-9-]{1,54}[a-z0-9]$/,
        "must be a lower-case storage queue name of 3 to 56 characters (room for -poison)",
      )
      .default("twin-events"),
    /** Delivery attempts per endpoint before an event is dead-lettered. */
    DELIVERY_MAX_ATTEMPTS: positiveIntSetting.default(10),
    /** How long after ingest an event may still be retried before it is dead-lettered. */
    DELIVERY_TTL_SECONDS: positiveIntSetting.default(86400),
    /** Retry delay before attempt n+1: min(cap, base * 2^(n-1)), with jitter. */
    DELIVERY_BACKOFF_BASE_SECONDS: positiveIntSetting.default(10),
    DELIVERY_BACKOFF_CAP_SECONDS: positiveIntSetting.default(3600),
    /** How long one Service Bus send may take before it counts as failed. */
    DELIVERY_SEND_TIMEOUT_MS: positiveIntSetting.default(15000),
    /** How long an instance's endpoint list is cached; a deleted endpoint stops receiving within it. */
    ENDPOINT_CACHE_SECONDS: z.coerce.number().int().nonnegative().default(30),
    /** Hosts endpoints may name: a Service Bus Endpoint, a dead-letter URL (https), on a label boundary. */
    SERVICEBUS_HOST_SUFFIXES: hostSuffixesSetting(DEFAULT_SERVICEBUS_HOST_SUFFIXES),
    STORAGE_HOST_SUFFIXES: hostSuffixesSetting(DEFAULT_STORAGE_HOST_SUFFIXES),
    /** Admits loopback endpoints too (the local stand-ins, over plain AMQP/http): local runs only. */
    ALLOW_LOOPBACK_ENDPOINTS: booleanSetting.default(false),
    /**
     * Where clients reach the service (a custom domain, API Management), for the links it hands
     * out: nextLink and the OpenAPI server. Absent: https://WEBSITE_HOSTNAME, which Azure sets.
     */
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .refine((value) => {
        // Not a URL at all: z.url has said so already.
        if (!URL.canParse(value)) return true;
        const url = new URL(value);
        return url.search === "" && url.hash === "" && url.username === "" && url.password === "";
      }, "must be an http(s) URL without query, fragment or user information")
      .optional(),

    /** Seals endpoint secrets at rest (AES-256-GCM). */
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
      message: "is required (a connection string, or AzureWebJobsStorage__accountName for managed identity)",
      // Reported alongside the other problems, not only once every field is valid.
      when: () => true,
    },
  )
  .superRefine((config, ctx) => {
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

/** Identity-based host storage settings: infra sets them with the Functions host's own settings. */
export const HOST_STORAGE_SETTINGS = [
  "AzureWebJobsStorage__accountName",
  "AzureWebJobsStorage__queueServiceUri",
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
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
        const missing = issue.code === "invalid_type" && input[String(issue.path[0])] === undefined;

        return `${issue.path.join(".") || "(settings)"}: ${missing ? "is required" : issue.message}`;
      }),
    );
  }
  return result.data;
}
