// The `fields` query parameter applied to a response (PocketBase's): keys kept with dot nesting, `*`
// for all keys at a depth, `:excerpt(max, withEllipsis?)` where asked (parsed in request-params.ts).
import { excerpt } from './excerpt.js';
import { setOwn } from './own-keys.js';
import type { FieldsTree } from './request-params.js';

function pickValue(value: unknown, node: FieldsTree): unknown {
  if (node.excerpt) return excerpt(value, node.excerpt.max, node.excerpt.ellipsis);
  if (node.children.size === 0) return value;
  if (Array.isArray(value)) return value.map((v) => pickValue(v, node));
  if (typeof value !== 'object' || value === null) return value;
  return pickObject(value as Record<string, unknown>, node);
}

function pickObject(obj: Record<string, unknown>, node: FieldsTree): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const star = node.children.get('*');
  if (star) for (const [k, v] of Object.entries(obj)) setOwn(out, k, pickValue(v, star));
  for (const [key, child] of node.children) {
    if (key === '*' || !Object.hasOwn(obj, key)) continue; // never an inherited `constructor`
    setOwn(out, key, pickValue(obj[key], child));
  }
  return out;
}

/** Applies a parsed `fields` tree to one JSON object (a record, a collection...). */
export function pick(value: unknown, tree: FieldsTree | null): unknown {
  if (tree === null) return value;
  return pickValue(value, tree);
}
