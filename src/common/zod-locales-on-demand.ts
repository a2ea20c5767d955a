import { Module } from "node:module";

/**
 * zod's every entry (`zod`, `zod/mini`, `zod/v4/core`) requires its locales index, and the index
 * requires every locale: 64 of the 95 modules `zod` loads, about 2.4 MB and a third of its load
 * time, for messages in languages the service never speaks. The English messages the API returns
 * do not come from the index: zod's classic API loads locales/en.cjs itself and makes it the
 * default when the first schema is made, whatever the index is.
 *
 * So, before zod loads, a stand-in for the index goes into Node's module cache (`require.cache`,
 * where adding entries is documented), and zod's `require` of the index gets the stand-in: an
 * object that loads the real index the first time anything reads it (`z.locales.fr()` still works,
 * it loads then). Where the cache is not Node's (Jest's registry ignores writes), zod loads as
 * published; only what is loaded differs, never what zod does.
 */
const LOCALES_INDEX = "zod/v4/locales/index.cjs";

export function installZodLocalesOnDemand(): void {
  const filename = require.resolve(LOCALES_INDEX);
  // zod is loaded already (or this ran before): the index is the real one, or the stand-in.
  if (require.cache[filename] !== undefined) return;
  const standIn = new Module(filename, module);
  standIn.filename = filename;
  standIn.loaded = true;
  standIn.exports = localesOnFirstRead(filename);
  require.cache[filename] = standIn;
}

type Locales = Record<PropertyKey, unknown>;

/** A proxy that answers `__esModule` (all zod's loader asks) and loads the real index on any other read. */
function localesOnFirstRead(filename: string): Locales {
  const mirror: Locales = {};
  let loaded = false;
  const load = (): Locales => {
    if (!loaded) {
      loaded = true;
      // Out of the cache first, so that this require loads the real index (and caches it).
      delete require.cache[filename];
      const real = require(filename) as Locales;
      Object.defineProperties(mirror, Object.getOwnPropertyDescriptors(real));
    }
    return mirror;
  };
  return new Proxy(mirror, {
    get: (_target, key, receiver) => (key === "__esModule" ? true : Reflect.get(load(), key, receiver)),
    has: (_target, key) => Reflect.has(load(), key),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(load(), key),
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(load(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(load(), key),
    set: (_target, key, value) => Reflect.set(load(), key, value),
  });
}

installZodLocalesOnDemand();
