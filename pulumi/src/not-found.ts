import { ServiceError } from "../../client/service-error";

/** The resource, or undefined when the service answers 404 (it was deleted outside Pulumi). */
export async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) return undefined;
    throw error;
  }
}
