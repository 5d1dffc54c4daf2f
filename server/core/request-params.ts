// The request parameters that shape a response, parsed once per request (request-context.ts): `expand`
// and `fields` (PocketBase's syntax) and a list's `page`, `perPage`, `sort`, `filter`, `skipTotal`
// (PocketBase's search provider defaults and limits). expand.ts and pick-fields.ts apply them.
import { badRequest } from '../errors.js';

/** Expand paths deeper than this are cut (PocketBase's limit). */
export const MAX_EXPAND_DEPTH = 6;

/**
 * The parsed `expand` parameter: relation paths as a tree of field (or `x_via_y`) names. The key
 * PATH_END marks where a requested path ends (`rel` asked alone, or only as part of `rel.sub`).
 */
export type ExpandTree = Map<string, ExpandTree>;

/** No segment is empty, so the empty key marks the end of a path. */
export const PATH_END = '';

export function parseExpand(param: string): ExpandTree {
  const root: ExpandTree = new Map();
  for (const raw of param.split(',')) {
    const path = raw.replace(/\s+/g, '').replace(/^\.+|\.+$/g, '');
    if (path === '') continue;
    let node = root;
    for (const seg of path.split('.').slice(0, MAX_EXPAND_DEPTH)) {
      if (seg === '') break;
      let next = node.get(seg);
      if (!next) node.set(seg, (next = new Map()));
      node = next;
    }
    if (node !== root) node.set(PATH_END, new Map());
  }
  return root;
}

/** The parsed `fields` parameter: keys to keep at each depth, `*` for all, and `:excerpt` where asked. */
export interface FieldsTree {
  children: Map<string, FieldsTree>;
  excerpt?: { max: number; ellipsis: boolean };
}

function newNode(): FieldsTree {
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

export function parseFields(param: string): FieldsTree | null {
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

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 1000;
/**
 * The last page a list may ask for: its offset, (page - 1) × perPage, stays a safe integer, which SQLite
 * takes as an integer (a larger one arrives as a float and fails with "datatype mismatch"). Any page past
 * the data answers empty with the real totals, as PocketBase does, so this one does too.
 */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PER_PAGE);

export interface Paging {
  page: number;
  perPage: number;
  sort?: string;
  filter?: string;
  skipTotal: boolean;
}

export interface Page<T> {
  page: number;
  perPage: number;
  totalItems: number;
  totalPages: number;
  items: T[];
}

function intParam(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest(`Invalid ${name} parameter.`);
  return Number(raw);
}

/** A boolean query parameter as PocketBase reads one (1, t, true / 0, f, false; absent is false); anything else is a 400 naming it. */
export function boolParam(raw: string | null | undefined, name = 'skipTotal'): boolean {
  if (raw === undefined || raw === null || raw === '') return false;
  if (/^(1|t|true)$/i.test(raw)) return true;
  if (/^(0|f|false)$/i.test(raw)) return false;
  throw badRequest(`Invalid ${name} parameter.`);
}

/** The list parameters of a query string; a page below 1 is the first (past MAX_PAGE, MAX_PAGE), perPage is clamped to 1..MAX_PER_PAGE. */
export function parsePaging(query: Readonly<Record<string, string>>): Paging {
  const page = intParam(query.page, 'page');
  const perPage = intParam(query.perPage, 'perPage');
  return {
    page: page === undefined || page < 1 ? 1 : Math.min(page, MAX_PAGE),
    perPage: perPage === undefined || perPage <= 0 ? DEFAULT_PER_PAGE : Math.min(perPage, MAX_PER_PAGE),
    sort: query.sort,
    filter: query.filter,
    skipTotal: boolParam(query.skipTotal),
  };
}
