import type * as pulumi from "@pulumi/pulumi";

/** The value an Output settles on, as a program's later code would see it. */
export function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}
