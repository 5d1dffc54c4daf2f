// What select and relation share: "multiple" means maxSelect > 1; a single value is a string (the last
// submitted item wins), a multiple one an array of unique non-empty strings stored as JSON text.
import type { SqlValue } from '../types.js';
import { toUniqueStrings } from './casts.js';
import type { ModifierOp } from './spec.js';

interface MultiValued {
  maxSelect: number;
}

export const isMulti = (field: MultiValued): boolean => field.maxSelect > 1;

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
