// PocketBase casts submitted values with spf13/cast before validating them; these are the same casts.
// They never throw: an uncastable value becomes the type's zero value, as in PocketBase.

/** cast.ToString: strings as they are, numbers and booleans in their text form, anything else "". */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return '';
}

// Go's strconv.ParseFloat syntax (decimal, exponent, inf/infinity/nan), without surrounding spaces.
const FLOAT_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** cast.ToFloat64: numeric strings parse, ⚠ other strings become 0; true → 1. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    if (FLOAT_RE.test(value)) return Number(value);
    const special = SPECIAL_RE.exec(value);
    if (special === null) return 0;
    if (special[2].toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  return 0;
}

const TRUE_STRINGS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** cast.ToBool: strconv.ParseBool's true spellings, non-zero numbers; everything else false. */
export function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return TRUE_STRINGS.has(value);
  return false;
}

/**
 * list.ToUniqueStringSlice: a string holding a JSON array of strings is that array, any other non-empty
 * string is one item; array items are cast to text; scalars are one item. Empty items and duplicates go.
 */
export function toUniqueStrings(value: unknown): string[] {
  let items: string[] = [];
  if (typeof value === 'string') {
    items = value === '' ? [] : parseStringArray(value) ?? [value];
  } else if (Array.isArray(value)) {
    items = value.map(toText);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    items = [toText(value)];
  }
  return [...new Set(items.filter((s) => s !== ''))];
}

function parseStringArray(value: string): string[] | null {
  if (!value.includes('[')) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

/** Storage shared by the types kept as plain text (text, editor, email, url, password). */
export const TEXT_STORAGE = {
  column: (): string => "TEXT DEFAULT '' NOT NULL",
  normalize: (value: unknown): string => toText(value),
  zero: (): string => '',
  toStored: (value: unknown): string => toText(value),
  fromStored: (value: unknown): string => toText(value),
};
