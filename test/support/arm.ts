import type { ArmErrorBody } from "../../src/http/errors";

/** Reads an ARM error response and checks the parts every error shares. */
export async function armError(response: Response): Promise<ArmErrorBody["error"]> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("x-ms-request-id")).toBeTruthy();
  const body = (await response.json()) as ArmErrorBody;
  expect(typeof body.error.code).toBe("string");
  expect(typeof body.error.message).toBe("string");
  return body.error;
}

/** Asserts status, error code and (when given) target in one line, as the contract's table reads. */
export async function expectArmError(
  response: Response,
  status: number,
  code: string,
  target?: string,
): Promise<ArmErrorBody["error"]> {
  const error = await armError(response);
  expect({ status: response.status, code: error.code }).toEqual({ status, code });
  if (target !== undefined) expect(error.target).toBe(target);
  return error;
}

/**
 * What the Functions host answers itself, before any function runs (no route for the path and
 * method, a missing or wrong key, a body over its limit): the status and no body, as in Azure.
 */
export async function expectHostAnswer(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.text()).toBe("");
}
