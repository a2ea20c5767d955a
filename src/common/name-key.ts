/**
 * The key under which a name is stored and compared, so that names match case-insensitively as
 * ARM matches them: ordinally, each character taken by its simple upper-case mapping. So "Factory-1"
 * and "FACTORY-1" share a key, while "K" and the Kelvin sign "\u212A", or "ss" and "ß", which ARM
 * keeps apart, do not, though `toLowerCase()` and `toUpperCase()` would fold them into one.
 * For an ASCII name the key is the name lower-cased, which is how ids were always stored.
 */
export function nameKey(name: string): string {
  let key = "";
  for (const char of name) {
    const upper = char.toUpperCase();
    // Only one-to-one mappings: "ß" stays "ß" rather than becoming "SS".
    const simple = [...upper].length === 1 ? upper : char;
    key += simple.length === 1 && simple < "\u0080" ? simple.toLowerCase() : simple;
  }
  return key;
}

/** Whether two names are the same name to ARM. */
export function sameName(a: string, b: string): boolean {
  return nameKey(a) === nameKey(b);
}
