import { loadOnFirstRead } from "./load-on-first-read";

/**
 * zod's every entry (`zod`, `zod/mini`, `zod/v4/core`) requires its locales index, and the index
 * requires every locale: all but English are 62 of the 95 modules `zod` loads, about 2.5 MB and a
 * third of its load time, for messages in languages the service never speaks. The English messages
 * the API returns do not come from the index: zod's classic API loads locales/en.cjs itself and
 * makes it the default when the first schema is made. With the index loaded on first read,
 * `z.locales.fr()` still works: it loads the index then.
 */
export function installZodLocalesOnDemand(): void {
  loadOnFirstRead(require.resolve("zod/v4/locales/index.cjs"));
}

installZodLocalesOnDemand();
