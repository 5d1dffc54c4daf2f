// What select and relation share: "multiple" means maxSelect > 1; a single value is a string (the last
// submitted item wins), a multiple one an array of unique non-empty strings stored as JSON text.
import type { SqlValue } from '../../model/types.js';
import { toUniqueStrings } from './casts.js';
import type { ModifierOp } from './spec.js';

interface MultiValued {
  maxSelect: number;
}

export const isMulti = (field: MultiValued): boolean => field.maxSelect > 1;

/**
 * A stored value read back: what normalizeMulti gives, without its copies for the values the write
 * funnel stores (an id, or a JSON array of distinct non-empty ids), which every listed record has.
 */
export function multiFromStored(value: unknown, field: MultiValued): string | string[] {
  if (typeof value === 'string' && !value.includes('[')) {
    // no JSON array: the string is the one item
    if (!isMulti(field)) return value;
    return value === '' ? [] : [value];
  }
  if (isMulti(field) && typeof value === 'string' && value.startsWith('[')) {
    const parsed = parseJson(value);
    if (Array.isArray(parsed) && distinctTexts(parsed)) return parsed as string[];
  }
  return normalizeMulti(value, field);
}

/** Whether every item is a non-empty string and no two are equal (a few items compared pairwise, no Set made). */
function distinctTexts(items: unknown[]): boolean {
  if (!items.every((s) => typeof s === 'string' && s !== '')) return false;
  if (items.length > 8) return new Set(items).size === items.length;
  for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (items[i] === items[j]) return false;
  return true;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function normalizeMulti(value: unknown, field: MultiValued): string | string[] {
  const items = toUniqueStrings(value);
  if (isMulti(field)) return items;
  return items.length > 0 ? items[items.length - 1] : '';
}

export const multiColumn = (field: MultiValued): string => (isMulti(field) ? "JSON DEFAULT '[]' NOT NULL" : "TEXT DEFAULT '' NOT NULL");

export const multiZero = (field: MultiValued): string | string[] => (isMulti(field) ? [] : '');

export function multiToStored(value: unknown, field: MultiValued): SqlValue {
  const v = normalizeMulti(value, field);
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

/** `field+` appends, `+field` prepends (both deduplicated), `field-` removes; the result obeys single/multiple. */
export function modifyMulti(current: unknown, op: ModifierOp, operand: unknown, field: MultiValued): string | string[] {
  const now = toUniqueStrings(current);
  const given = toUniqueStrings(operand);
  if (op === 'append') return normalizeMulti([...now, ...given], field);
  if (op === 'prepend') return normalizeMulti([...given, ...now], field);
  if (op === 'remove') return normalizeMulti(now.filter((v) => !given.includes(v)), field);
  return normalizeMulti(now, field);
}

/** The submitted items of a normalised value (validation works on the list in both modes). */
export const itemsOf = (value: unknown): string[] => toUniqueStrings(value);
