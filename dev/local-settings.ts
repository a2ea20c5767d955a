import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "./local-paths";
import { StartupError } from "./startup-error";

export type Settings = Record<string, string>;

export function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** The Values of a settings file in the Functions Core Tools format. */
export function readSettingsFile(file: string): Settings {
  const name = path.basename(file);
  let json: { IsEncrypted?: unknown; Values?: unknown } | null;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new StartupError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
  const { IsEncrypted, Values = {} } = json ?? {};
  if (IsEncrypted === true)
    throw new StartupError(`${name} is encrypted; the launcher reads plain values only.`);
  if (typeof Values !== "object" || Values === null || Array.isArray(Values))
    throw new StartupError(`${name}: "Values" must be an object of settings.`);
  return Object.fromEntries(Object.entries(Values).map(([key, value]) => [key, String(value)]));
}

/**
 * local.settings.json if the developer made one, else the committed sample (LOCAL_SETTINGS_FILE
 * names another, so tests never read a developer's own), environment variables winning, as the
 * Functions Core Tools do.
 */
export function loadLocalSettings(env: NodeJS.ProcessEnv = process.env): {
  file: string | undefined;
  values: Settings;
} {
  const root = projectRoot();
  const file = env.LOCAL_SETTINGS_FILE
    ? path.resolve(root, env.LOCAL_SETTINGS_FILE)
    : ["local.settings.json", "local.settings.sample.json"]
        .map((name) => path.join(root, name))
        .find(existsSync);
  if (env.LOCAL_SETTINGS_FILE && !existsSync(file as string))
    throw new StartupError(`LOCAL_SETTINGS_FILE names ${file}, which does not exist.`);
  const values = file === undefined ? {} : readSettingsFile(file);
  for (const [name, value] of Object.entries(env)) if (value !== undefined) values[name] = value;
  return { file, values };
}
