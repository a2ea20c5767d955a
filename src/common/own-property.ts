/**
 * record[key] = value as an own, enumerable property whatever the key. A plain assignment of
 * `__proto__` sets the record's prototype instead (or, for a primitive, does nothing), so a
 * member or header of that name would vanish from the copy; JSON.parse, spread and
 * Object.fromEntries all define it as a member, and copies made here must keep it the same way.
 */
export function setOwnProperty<V>(record: Record<string, V>, key: string, value: V): void {
  if (key === "__proto__")
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
