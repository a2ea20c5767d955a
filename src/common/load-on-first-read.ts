import { Module } from "node:module";

/**
 * Some packages load, when they load, a module they need only for a feature the service never
 * uses: zod requires all of its ~65 locales, the Cosmos DB SDK the Key Vault keys SDK (for its
 * client-side encryption). Each costs a new instance time and memory before its first answer.
 *
 * loadOnFirstRead puts a stand-in for such a module into Node's module cache (`require.cache`,
 * where adding entries is documented) before the package that requires it loads: the package's
 * `require` gets the stand-in, an object that loads the real module the first time anything reads
 * it, and from then on answers as the real module does. It must run first: if the real module is
 * loaded already, it changes nothing. Where the module cache is not Node's (Jest's registry ignores
 * writes), everything loads as published. Only what is loaded, and when, differs; never what runs.
 *
 * `filename` is the module's resolved file, exactly as the package's own `require` resolves it.
 */
export function loadOnFirstRead(filename: string): void {
  if (require.cache[filename] !== undefined) return;
  const standIn = new Module(filename, module);
  standIn.filename = filename;
  standIn.loaded = true;
  standIn.exports = readsLoad(filename);
  require.cache[filename] = standIn;
}

type Exports = Record<PropertyKey, unknown>;

/**
 * A proxy that answers `__esModule` without loading (TypeScript's and esbuild's interop helpers ask
 * it of a module first) and loads the real module on any other read, mirroring it from then on.
 */
function readsLoad(filename: string): Exports {
  const mirror: Exports = {};
  let loaded = false;
  const load = (): Exports => {
    if (!loaded) {
      loaded = true;
      // Out of the cache first, so that this require loads the real module (and caches it).
      delete require.cache[filename];
      const real = require(filename) as Exports;
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
