// `json`: any JSON value, stored as JSON text (NULL for null). The normalised value is the parsed value.
// ⚠ String input is read the PocketBase way, so that form-data works like JSON: "" stays the string "",
// `null`/`true`/`false` and valid JSON starting with a digit, `-`, `"`, `[` or `{` are that JSON, any
// other string is a JSON string.
import type { FieldBase, JsonField } from '../../model/types.js';
import { checkIntRange, err, OptionReader, required, sortKeys } from './common.js';
import type { FieldSpec } from './spec.js';
import { jsonWeight } from '../value-weight.js';

export const DEFAULT_JSON_MAX_SIZE = 1 << 20;

const LITERALS: Readonly<Record<string, null | boolean>> = { null: null, true: true, false: false };

function parseJsonString(str: string): unknown {
  if (str in LITERALS) return LITERALS[str];
  if (/^[0-9\-"[{]/.test(str)) {
    try {
      return JSON.parse(str);
    } catch {
      return str;
    }
  }
  return str;
}

/** The value as JSON text, or undefined when it has no JSON form (functions, symbols, NaN...). */
export function jsonText(value: unknown): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // cycles, BigInt
  }
}

function normalize(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return parseJsonString(value);
  const text = jsonText(value);
  return text === undefined ? value : JSON.parse(text); // a plain copy, with undefined members dropped
}

const EMPTY_JSON = new Set(['null', '""', '[]', '{}']);

const maxSizeOf = (field: JsonField): number => (field.maxSize > 0 ? field.maxSize : DEFAULT_JSON_MAX_SIZE);
const tooLarge = (maxSize: number) => err('validation_json_size_limit', 'The maximum allowed JSON size is {maxSize} bytes.', { maxSize });

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: JsonField = sortKeys({ ...base, type: 'json', maxSize: r.int('maxSize') });
  checkIntRange(r, 'maxSize', field.maxSize, 0);
  return { field, errors: r.errors };
}

export const jsonSpec: FieldSpec<'json'> = {
  type: 'json',
  define,
  column: () => 'JSON DEFAULT NULL',
  normalize,
  zero: () => null,
  oversize(value, field) {
    const maxSize = maxSizeOf(field);
    // a string may be JSON text, which can shrink when read again (spaces, `\u0041` escapes): at least a sixth stays
    const weight = typeof value === 'string' ? Math.floor(value.length / 6) : jsonWeight(value, maxSize);
    return weight > maxSize ? tooLarge(maxSize) : null;
  },
  validate(value, field) {
    const text = jsonText(value);
    if (text === undefined) return err('validation_invalid_json', 'Must be a valid json value.');
    const maxSize = maxSizeOf(field);
    if (Buffer.byteLength(text, 'utf8') > maxSize) return tooLarge(maxSize);
    return field.required && EMPTY_JSON.has(text) ? required() : null;
  },
  // the value is already normalised: re-reading it would turn the JSON string "1" into the number 1
  toStored: (value) => (value === null || value === undefined ? null : jsonText(value) ?? null),
  fromStored(value) {
    if (value === null) return null;
    if (typeof value === 'number') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value; // not JSON (written outside the API): shown as the text it is
    }
  },
};
