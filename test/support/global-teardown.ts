import type { RunningAzurite } from "../../dev/stand-ins/azurite";
import type { RunningCosmosServer } from "../../dev/stand-ins/cosmos-server";

export default async function globalTeardown(): Promise<void> {
  const standIns = (globalThis as Record<string, unknown>).__standIns as
    | { cosmos: RunningCosmosServer; azurite: RunningAzurite }
    | undefined;
  await Promise.all([standIns?.cosmos.close(), standIns?.azurite.stop()]);
}
