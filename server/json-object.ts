// What a JSON object is, for every layer: a value that is an object, not null and not an array (a
// request body, a field's options, a stored definition). A leaf: it imports nothing.

/** Whether `value` is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
