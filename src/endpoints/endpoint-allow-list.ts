import { type ConnectionString, parseConnectionString } from "./connection-string";
import { type ContainerUrl, parseDeadLetterSecret } from "./dead-letter-secret";
import { type Authority, isIpLiteral, isLoopback, matchesSuffix } from "./host-names";

/**
 * Where endpoints may point. The service connects to what an endpoint names (Service Bus to
 * deliver, blob storage to dead-letter), so a caller who could name any host could make it send
 * requests anywhere: the metadata service, private addresses, the app itself. Only Azure cloud
 * hosts are admitted, plus loopback for local runs (ALLOW_LOOPBACK_ENDPOINTS, never set in Azure).
 */
export interface EndpointAllowList {
  /** Lower-case, each starting with '.': a host must end with one on a label boundary. */
  serviceBusSuffixes: readonly string[];
  storageSuffixes: readonly string[];
  /** 127.0.0.0/8, ::1 and localhost, over plain AMQP or http too. */
  allowLoopback: boolean;
}

export const DEFAULT_SERVICEBUS_HOST_SUFFIXES: readonly string[] = [
  ".servicebus.windows.net",
  ".servicebus.chinacloudapi.cn",
  ".servicebus.usgovcloudapi.net",
];

export const DEFAULT_STORAGE_HOST_SUFFIXES: readonly string[] = [
  ".blob.core.windows.net",
  ".blob.core.chinacloudapi.cn",
  ".blob.core.usgovcloudapi.net",
];

export function allowListFromConfig(config: {
  SERVICEBUS_HOST_SUFFIXES: readonly string[];
  STORAGE_HOST_SUFFIXES: readonly string[];
  ALLOW_LOOPBACK_ENDPOINTS: boolean;
}): EndpointAllowList {
  return {
    serviceBusSuffixes: config.SERVICEBUS_HOST_SUFFIXES,
    storageSuffixes: config.STORAGE_HOST_SUFFIXES,
    allowLoopback: config.ALLOW_LOOPBACK_ENDPOINTS,
  };
}

type HostVerdict = "cloud" | "loopback" | { problem: string };

/** Whether a host is admitted; problems name the setting to change, never the host (it came from the caller). */
function judgeHost(
  authority: Authority,
  suffixes: readonly string[],
  allowLoopback: boolean,
  what: { noun: string; setting: string },
): HostVerdict {
  const { hostname, port } = authority;
  if (isLoopback(hostname)) {
    return allowLoopback
      ? "loopback"
      : {
          problem: `points at a loopback host, which this deployment does not allow (ALLOW_LOOPBACK_ENDPOINTS)`,
        };
  }
  if (isIpLiteral(hostname))
    return { problem: `names an IP address: name the ${what.noun} by its host name` };
  if (!matchesSuffix(hostname, suffixes)) {
    return {
      problem: `is not a ${what.noun} host: it must end with one of ${suffixes.join(", ")} (${what.setting})`,
    };
  }
  if (port !== undefined) return { problem: `names a port: ${what.noun} hosts take none` };
  return "cloud";
}

function judgeServiceBusHost(authority: Authority, allowList: EndpointAllowList): HostVerdict {
  return judgeHost(authority, allowList.serviceBusSuffixes, allowList.allowLoopback, {
    noun: "Service Bus namespace",
    setting: "SERVICEBUS_HOST_SUFFIXES",
  });
}

/** What is wrong with where an identity-based endpoint's namespace (`endpointUri`) points. */
export function serviceBusHostProblems(authority: Authority, allowList: EndpointAllowList): string[] {
  const verdict = judgeServiceBusHost(authority, allowList);
  return typeof verdict === "object" ? [verdict.problem] : [];
}

/** What is wrong with where a parsed connection string points. */
export function connectionStringHostProblems(
  connection: ConnectionString,
  allowList: EndpointAllowList,
): string[] {
  const { parts } = connection;
  const verdict = judgeServiceBusHost(parts.authority, allowList);
  if (typeof verdict === "object") return [`has an Endpoint that ${verdict.problem}`];
  // UseDevelopmentEmulator makes the SDK send the key over plain TCP: loopback only.
  if (verdict !== "loopback" && parts.useDevelopmentEmulator !== undefined) {
    return ["has UseDevelopmentEmulator, which is accepted for a loopback Endpoint only (it turns TLS off)"];
  }
  return [];
}

/** Everything wrong with a connection string: its form, then where it points. */
export function connectionStringProblems(text: string, allowList: EndpointAllowList): string[] {
  const parsed = parseConnectionString(text);
  return parsed.ok ? connectionStringHostProblems(parsed.value, allowList) : parsed.problems;
}

/** What is wrong with where a parsed dead-letter URL (a SAS URL, or an identity-based endpoint's) points. */
export function deadLetterHostProblems(deadLetter: ContainerUrl, allowList: EndpointAllowList): string[] {
  const verdict = judgeHost(deadLetter.authority, allowList.storageSuffixes, allowList.allowLoopback, {
    noun: "blob storage",
    setting: "STORAGE_HOST_SUFFIXES",
  });
  if (typeof verdict === "object") return [verdict.problem];
  if (verdict === "cloud" && deadLetter.scheme !== "https") return ["must be an https URL"];
  return [];
}

/**
 * What is wrong with a stored dead-letter URL's form (its SAS token aside: sas-token.ts), then
 * where it points: delivery's re-check before it writes.
 */
export function deadLetterSecretProblems(text: string, allowList: EndpointAllowList): string[] {
  const parsed = parseDeadLetterSecret(text, { checkToken: false });
  return parsed.ok ? deadLetterHostProblems(parsed.value, allowList) : parsed.problems;
}
