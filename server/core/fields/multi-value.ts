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
    const parsed = plainTexts(value) ?? parseJson(value);
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

/** What would make a JSON string's text differ from its characters: an escape, or a control character (JSON refuses it). */
// eslint-disable-next-line no-control-regex -- the control characters JSON refuses raw are what it finds
const ESCAPED = /[\\\x00-\x1f]/;

/**
 * JSON.parse's array for the text the write funnel stores, `["a","b"]` or `[]` (strings without escapes, no
 * spaces), read at about half its cost (every multiple relation or select of every record served);
 * undefined for any other text, which JSON.parse reads.
 */
function plainTexts(text: string): string[] | undefined {
  // no items: what the funnel stores for an empty multiple value (a list's records often have one)
  if (text === '[]') return [];
  if (text.charCodeAt(1) !== 34 || ESCAPED.test(text)) return undefined;
  const out: string[] = [];
  let at = 1;
  for (;;) {
    const end = text.indexOf('"', at + 1);
    if (end < 0) return undefined;
    out.push(text.slice(at + 1, end));
    const next = text.charCodeAt(end + 1);
    if (next === 93) return end + 2 === text.length ? out : undefined;
    if (next !== 44 || text.charCodeAt(end + 2) !== 34) return undefined;
    at = end + 2;
  }
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
