// The `fields` query parameter (semantics.md §4.4): comma-separated keys with dot nesting, `*` for all
// keys at a depth, and the `:excerpt(max, withEllipsis?)` modifier.
import { badRequest } from '../errors.js';
import { excerpt } from './excerpt.js';
import { setOwn } from './own-keys.js';

interface Node {
  children: Map<string, Node>;
  excerpt?: { max: number; ellipsis: boolean };
}

function newNode(): Node {
  return { children: new Map() };
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth = Math.max(0, depth - 1);
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((p) => p.trim()).filter((p) => p !== '');
}

function parseModifier(text: string): { max: number; ellipsis: boolean } {
  const m = /^excerpt\(\s*(\d+)\s*(?:,\s*(true|false|1|0|t|f)\s*)?\)$/i.exec(text);
  if (!m || Number(m[1]) <= 0) throw badRequest(`Invalid fields modifier "${text}".`);
  return { max: Number(m[1]), ellipsis: m[2] !== undefined && /^(true|1|t)$/i.test(m[2]) };
}

export function parseFields(param: string): Node | null {
  if (param.length > 2000) throw badRequest('The fields parameter is too long.');
  const parts = splitTopLevel(param);
  if (parts.length === 0) return null;
  const root = newNode();
  for (const part of parts) {
    const colon = part.indexOf(':');
    const path = colon >= 0 ? part.slice(0, colon) : part;
    const mod = colon >= 0 ? parseModifier(part.slice(colon + 1)) : undefined;
    let node = root;
    for (const key of path.split('.')) {
      if (key === '') continue;
      let next = node.children.get(key);
      if (!next) node.children.set(key, (next = newNode()));
      node = next;
    }
    if (mod) node.excerpt = mod;
  }
  return root;
}

/**
 * Excerpts already made in this answer, by options and text. An expanded record shared by many parents
 * is one object whose text repeats in the JSON; each repeat used to be excerpted again (a 5 MB post
 * under 1,000 comments: 22 s of the loop). Keyed by the string itself: V8 hashes a string once and
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

function pickValue(value: unknown, node: Node, memo: ExcerptMemo): unknown {
  if (node.excerpt) return excerptOnce(value, node.excerpt, memo);
  if (node.children.size === 0) return value;
  if (Array.isArray(value)) return value.map((v) => pickValue(v, node, memo));
  if (typeof value !== 'object' || value === null) return value;
  return pickObject(value as Record<string, unknown>, node, memo);
}

function pickObject(obj: Record<string, unknown>, node: Node, memo: ExcerptMemo): Record<string, unknown> {
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
export function pick(value: unknown, tree: Node | null): unknown {
  return pickAll([value], tree)[0];
}

/** Applies a parsed `fields` tree to each value of one answer, excerpting each distinct text once. */
export function pickAll(values: unknown[], tree: Node | null): unknown[] {
  if (tree === null) return values;
  const memo: ExcerptMemo = new Map();
  return values.map((value) => pickValue(value, tree, memo));
}

/** The top-level keys `fields` picks, or null when it picks all of them (`*`) or there is no `fields`. */
export function topLevelNames(tree: Node | null): Set<string> | null {
  if (tree === null || tree.children.has('*')) return null;
  return new Set(tree.children.keys());
}
