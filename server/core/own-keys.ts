// Objects keyed by names a client chooses (body keys, query and header names, JSON members): assigning
// `__proto__` would replace the object's prototype instead of storing the value (and let a body graft
// inherited keys onto it), and `in` sees inherited members such as `constructor`. Such objects are
// written with setOwn and tested with Object.hasOwn.

/** Stores `value` under `key` as an own, enumerable property, `__proto__` included. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
