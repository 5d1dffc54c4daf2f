// The `fields` query parameter applied to a response (PocketBase's): keys kept with dot nesting, `*`
// for all keys at a depth, `:excerpt(max, withEllipsis?)` where asked (parsed in request-params.ts).
import { excerpt } from './excerpt.js';
import { setOwn } from './own-keys.js';
import type { FieldsTree } from './request-params.js';

/**
 * Excerpts already made in this answer, by options and text. An expanded record shared by many parents
 * is one object whose text repeats in the JSON; excerpting each repeat again would cost the
 * loop the text's length times its repeats. Keyed by the string itself: V8 hashes a string once and
 * keeps the hash, so a repeat costs a lookup.
 */
type ExcerptMemo = Map<string, Map<string, unknown>>;

function excerptOnce(value: unknown, options: { max: number; ellipsis: boolean }, memo: ExcerptMemo): unknown {
  if (typeof value !== 'string') return excerpt(value, options.max, options.ellipsis);
  const key = `${options.max},${options.ellipsis}`;
  let made = memo.get(key);
  if (!made) memo.set(key, (made = new Map()));
  let out = made.get(value);
  if (out === undefined) made.set(value, (out = excerpt(value, options.max, options.ellipsis)));
  return out;
}

function pickValue(value: unknown, node: FieldsTree, memo: ExcerptMemo): unknown {
  if (node.excerpt) return excerptOnce(value, node.excerpt, memo);
  if (node.children.size === 0) return value;
  if (Array.isArray(value)) return value.map((v) => pickValue(v, node, memo));
  if (typeof value !== 'object' || value === null) return value;
  return pickObject(value as Record<string, unknown>, node, memo);
}

function pickObject(obj: Record<string, unknown>, node: FieldsTree, memo: ExcerptMemo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const star = node.children.get('*');
  if (star) for (const [k, v] of Object.entries(obj)) setOwn(out, k, pickValue(v, star, memo));
  for (const [key, child] of node.children) {
    if (key === '*' || !Object.hasOwn(obj, key)) continue; // never an inherited `constructor`
    setOwn(out, key, pickValue(obj[key], child, memo));
  }
  return out;
}

/** Applies a parsed `fields` tree to one JSON object (a record, a collection...). */
export function pick(value: unknown, tree: FieldsTree | null): unknown {
  return pickAll([value], tree)[0];
}

/** Applies a parsed `fields` tree to each value of one answer, excerpting each distinct text once. */
export function pickAll(values: unknown[], tree: FieldsTree | null): unknown[] {
  if (tree === null) return values;
  const memo: ExcerptMemo = new Map();
  return values.map((value) => pickValue(value, tree, memo));
}

/** The top-level keys `fields` picks, or null when it picks all of them (`*`) or there is no `fields`. */
export function topLevelNames(tree: FieldsTree | null): Set<string> | null {
  if (tree === null || tree.children.has('*')) return null;
  return new Set(tree.children.keys());
}
