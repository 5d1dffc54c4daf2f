// What a submitted value weighs before anything is done with it: a lower bound of the UTF-8 length of
// its JSON text, counted on the value as parsed (strings by their length, which UTF-8 never makes
// shorter), without serialising it. Oversized values are refused on this weight before they are
// normalised, checked by a rule or bound in SQL (fields/<type>.ts `oversize`, writes/submitted.ts), and a
// write's (or a whole batch's) values together are held to MAX_WRITE_BYTES (query-budget.ts).

/** Only arrays and plain objects are walked: an upload (or any other object) weighs nothing here. */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A lower bound of `Buffer.byteLength(JSON.stringify(value))`, exact enough to compare with a limit:
 * counting stops once it passes `stopAfter`, so a huge value costs no more than the limit to weigh (and
 * a body's values are already bounded in number by its shape check, http/body-shape.ts).
 */
export function jsonWeight(value: unknown, stopAfter = Infinity): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAfter) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'bigint') total += 1;
    else if (typeof v === 'boolean') total += 4;
    else if (v === null) total += 4;
    else if (Array.isArray(v)) {
      total += 1 + Math.max(v.length, 1); // brackets and commas
      if (total <= stopAfter) for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && isPlainObject(v)) {
      const keys = Object.keys(v);
      total += 1 + Math.max(keys.length, 1);
      for (const key of keys) {
        if (total > stopAfter) break;
        const item = v[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue; // JSON leaves these out
        total += key.length + 3; // "key":
        stack.push(item);
      }
    }
  }
  return total;
}
