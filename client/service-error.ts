import type { ErrorDetail } from "./types";

/** Codes for answers without an ARM error body (Azure's own front answers 401 and 404 with none). */
const CODES_BY_STATUS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  412: "PreconditionFailed",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalServerError",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
};

export interface ServiceErrorInit {
  status: number;
  code: string;
  message: string;
  target?: string;
  details?: ErrorDetail[];
  requestId?: string;
  retryAfterMs?: number;
}

/**
 * The one error the client throws for an answer the service refused, with the ARM error's parts.
 * The message is the service's own (which never carries a secret) or a generic one: response bodies
 * that are not ARM errors are not quoted.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly code: string;
  readonly target: string | undefined;
  readonly details: ErrorDetail[];
  /** The `x-ms-request-id` of the answer: quote it when asking the service's operators. */
  readonly requestId: string | undefined;
  /** The wait the service asked for (429, 503), when it did. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ServiceErrorInit) {
    super(`${init.code}: ${init.message}`);
    // Pulumi's closure serializer (this class runs in dynamic providers) rebuilds it as a function
    // whose super call does not initialise this object, and the provider host reports e.message.
    this.message = `${init.code}: ${init.message}`;
    this.name = "ServiceError";
    this.status = init.status;
    this.code = init.code;
    this.target = init.target;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }
}

interface ArmErrorBody {
  error?: { code?: unknown; message?: unknown; target?: unknown; details?: unknown };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function details(value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is Record<string, unknown> => item !== null && typeof item === "object")
    .map((item) => {
      const target = text(item.target);
      return {
        code: text(item.code) ?? "",
        message: text(item.message) ?? "",
        ...(target !== undefined && { target }),
      };
    });
}

async function readArmError(response: Response): Promise<ArmErrorBody["error"]> {
  try {
    const body = (await response.json()) as ArmErrorBody;
    return body !== null && typeof body === "object" ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a refused answer (consuming its body) into a ServiceError. */
export async function serviceErrorFrom(response: Response, retryAfterMs?: number): Promise<ServiceError> {
  const error = await readArmError(response);
  const code = text(error?.code) ?? CODES_BY_STATUS[response.status] ?? `Http${response.status}`;
  const target = text(error?.target);
  const requestId = response.headers.get("x-ms-request-id") ?? undefined;
  return new ServiceError({
    status: response.status,
    code,
    message: text(error?.message) ?? `The service answered ${response.status} without an error body.`,
    ...(target !== undefined && { target }),
    details: details(error?.details),
    ...(requestId !== undefined && { requestId }),
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });
}
