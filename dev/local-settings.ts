import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "./local-paths";
import { StartupError } from "./startup-error";

export type Settings = Record<string, string>;

export interface LocalSettings {
  /** The file the values came from; undefined when there is none. */
  file: string | undefined;
  values: Settings;
}

const SETTINGS_FILES = ["local.settings.json", "local.settings.sample.json"];

/**
 * local.settings.json if the developer made one, else the committed sample. LOCAL_SETTINGS_FILE
 * names another file, so tests never pick up a developer's own settings.
 */
export function findSettingsFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env.LOCAL_SETTINGS_FILE) {
    const file = path.resolve(projectRoot(), env.LOCAL_SETTINGS_FILE);
    if (!existsSync(file)) throw new StartupError(`LOCAL_SETTINGS_FILE names ${file}, which does not exist.`);
    return file;
  }
  return SETTINGS_FILES.map((name) => path.join(projectRoot(), name)).find((file) => existsSync(file));
}

/** The Values of a settings file in the Functions Core Tools format. */
export function readSettingsFile(file: string): Settings {
  const name = path.basename(file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new StartupError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
  const { IsEncrypted, Values } = (json ?? {}) as { IsEncrypted?: unknown; Values?: unknown };
  if (IsEncrypted === true)
    throw new StartupError(`${name} is encrypted; the launcher reads plain values only.`);
  if (Values === undefined) return {};
  if (typeof Values !== "object" || Values === null || Array.isArray(Values)) {
    throw new StartupError(`${name}: "Values" must be an object of settings.`);
  }
  const values: Settings = {};
  for (const [key, value] of Object.entries(Values)) {
    if (!["string", "number", "boolean"].includes(typeof value)) {
      throw new StartupError(`${name}: the value of ${key} must be a string.`);
    }
    values[key] = String(value);
  }
  return values;
}

/** The file's values with real environment variables winning, as the Functions Core Tools do. */
export function loadLocalSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  const file = findSettingsFile(env);
  const values = file === undefined ? {} : readSettingsFile(file);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) values[name] = value;
  }
  return { file, values };
}
