import { z } from "./zod";

/** A server-made field of a PUT body: a body may echo it, with its current value only. */
export const serverSet = (what: string) =>
  z
    .string()
    .meta({ readOnly: true, description: `${what}; set by the service. A body may echo its current value.` });
