// Completion for the filter language (the records filter box and the API rules): what may come at the
// caret, from the collection's schema. Field names and relation paths (`author.name`, back-relations
// `comments_via_post`), `@request.*` (auth, body, query, headers, method, context), `@collection.<name>.*`,
// macros (`@now`…), modifiers (`:isset`, `:changed`, `:length`, `:each`, `:lower`) and operators.
// Pure: the caller renders the list and splices the choice in.
import type { Collection, Field } from '../api.js';

export interface Suggestion {
  /** What the list shows and what replaces the word being typed. */
  text: string;
  /** A short word on what it is: a field type, "operator", "macro"… */
  detail: string;
  /** A whole filter (a recent one): taking it replaces the text and applies it. */
  apply?: boolean;
}

export interface Completion {
  /** The range of the text the chosen suggestion replaces. */
  from: number;
  to: number;
  items: Suggestion[];
}

type Scope = Pick<Collection, 'name' | 'type' | 'fields'> & { id?: string };

export interface CompleteContext {
  /** The collection filtered, or the draft being edited (its fields as typed so far). */
  collection: Scope;
  collections: ReadonlyArray<Pick<Collection, 'id' | 'name' | 'type' | 'fields'>>;
  /** Rules may use `:changed`/`:isset` on @request.body and always see @request.*; the filter box too, for superusers. */
  mode: 'filter' | 'rule';
}

const OPERATORS: Suggestion[] = [
  ['=', 'equal'], ['!=', 'not equal'], ['>', 'greater'], ['>=', 'greater or equal'], ['<', 'less'], ['<=', 'less or equal'],
  ['~', 'contains / like'], ['!~', 'does not contain'], ['?=', 'any item equal'], ['?!=', 'any item not equal'], ['?>', 'any item greater'],
  ['?>=', 'any item greater or equal'], ['?<', 'any item less'], ['?<=', 'any item less or equal'], ['?~', 'any item contains'], ['?!~', 'any item does not contain'],
].map(([text, detail]) => ({ text, detail }));
const JOINERS: Suggestion[] = [
  { text: '&&', detail: 'and' },
  { text: '||', detail: 'or' },
];
const MACROS = ['@now', '@second', '@minute', '@hour', '@weekday', '@day', '@month', '@year', '@todayStart', '@todayEnd', '@monthStart', '@monthEnd', '@yearStart', '@yearEnd'];
// The parts of @request that lead further end with a dot, so choosing one goes on to its names.
const REQUEST = ['auth.', 'body.', 'query.', 'headers.', 'method', 'context'];
const AUTH_EXTRA = ['collectionId', 'collectionName'];
const MULTI = new Set(['select', 'relation', 'file']);

function isMulti(f: Field): boolean {
  return MULTI.has(f.type) && 'maxSelect' in f && typeof f.maxSelect === 'number' && f.maxSelect > 1;
}

function modifiers(f: Field | undefined, mode: CompleteContext['mode'], body: boolean): Suggestion[] {
  const out: Suggestion[] = [];
  if (body && mode === 'rule') out.push({ text: ':isset', detail: 'was sent' }, { text: ':changed', detail: 'was sent and differs' });
  if (!f || MULTI.has(f.type)) out.push({ text: ':length', detail: 'number of items' }, { text: ':each', detail: 'every / ?any item' });
  if (!f || f.type === 'text' || f.type === 'email' || f.type === 'url' || f.type === 'editor' || f.type === 'select') out.push({ text: ':lower', detail: 'lower-cased' });
  return out;
}


/** The names a record of `c` offers after `x.`: its fields, and the back-relations that point at it. */
function namesOf(c: Scope, ctx: CompleteContext): Suggestion[] {
  const out: Suggestion[] = c.fields.filter((f) => f.type !== 'password').map((f) => ({ text: f.name, detail: isMulti(f) ? `${f.type} (multiple)` : f.type }));
  const id = c.id;
  for (const other of ctx.collections) {
    for (const f of other.fields) {
      if (f.type === 'relation' && id !== undefined && f.collectionId === id) out.push({ text: `${other.name}_via_${f.name}`, detail: `back-relation from ${other.name}` });
    }
  }
  return out;
}

/** Where a path's last but one segment leads: a related collection, a back-relation's owner. */
function step(from: Scope, name: string, ctx: CompleteContext): { scope?: Scope; field?: Field } {
  const f = from.fields.find((x) => x.name === name);
  if (f?.type === 'relation') return { scope: ctx.collections.find((c) => c.id === f.collectionId), field: f };
  if (f) return { field: f };
  // `<collection>_via_<field>`: only when that field of that collection points back here.
  const via = /^(\w+)_via_(\w+)$/.exec(name);
  const owner = via ? ctx.collections.find((c) => c.name === via[1]) : undefined;
  const back = owner?.fields.find((x) => x.name === via?.[2]);
  if (owner && back?.type === 'relation' && from.id !== undefined && back.collectionId === from.id) return { scope: owner };
  return {};
}

interface Walked {
  /** The collection (or auth fields) the path has reached, if it can go on. */
  scope?: Scope;
  /** The field the path ends on. */
  field?: Field;
  /** Names offered at a fixed point (`@request.`, `@collection.`). */
  fixed?: Suggestion[];
  /** Under `@request.body`: the rule modifiers apply. */
  body: boolean;
}

/** Follows `segments` from the collection (or `@request`/`@collection`) to where the path has got. */
function walk(segments: string[], ctx: CompleteContext): Walked {
  const self = ctx.collection;
  let scope: Scope | undefined = self;
  let field: Field | undefined;
  let body = false;
  let i = 0;
  if (segments[0] === '@request') {
    if (segments.length === 1) return { fixed: REQUEST.map((r) => ({ text: r, detail: '@request' })), body };
    if (segments[1] === 'auth') {
      const auth = ctx.collections.filter((c) => c.type === 'auth' && c.name !== '_superusers');
      const fields = dedupe(auth.flatMap((c) => c.fields));
      scope = { name: '', type: 'auth', fields: [...fields, ...AUTH_EXTRA.filter((n) => !fields.some((f) => f.name === n)).map((name) => ({ id: name, name, type: 'text' }) as Field)] };
    } else if (segments[1] === 'body') {
      body = true;
    } else return { body };
    i = 2;
  } else if (segments[0] === '@collection') {
    if (segments.length === 1) return { fixed: ctx.collections.map((c) => ({ text: `${c.name}.`, detail: `${c.type} collection` })), body };
    scope = ctx.collections.find((c) => c.name === segments[1]);
    i = 2;
  }
  for (; i < segments.length && scope; i++) {
    const next = step(scope, segments[i], ctx);
    field = next.field;
    // A path stops at a non-relation field (`meta.a` reads JSON keys, `point.lat` a coordinate).
    scope = next.scope;
  }
  return { scope, field, body };
}

function dedupe(fields: Field[]): Field[] {
  const seen = new Set<string>();
  return fields.filter((f) => !seen.has(f.name) && (seen.add(f.name), true));
}

function starting(items: Suggestion[], prefix: string): Suggestion[] {
  const p = prefix.toLowerCase();
  return items.filter((s) => s.text.toLowerCase().startsWith(p) && s.text !== prefix);
}

const ROOTS: Suggestion[] = [
  { text: '@request.', detail: 'the request' },
  { text: '@collection.', detail: 'another collection' },
];

/** The suggestions at `caret` in `text`. */
export function complete(text: string, caret: number, ctx: CompleteContext): Completion {
  const before = text.slice(0, caret);
  // Inside a string literal nothing is suggested.
  const quotes = (before.match(/(?<!\\)["']/g) ?? []).length;
  if (quotes % 2 === 1) return { from: caret, to: caret, items: [] };
  const word = /[@\w.:]*$/.exec(before)?.[0] ?? '';
  const from = caret - word.length;
  const to = caret + (/^[\w.:]*/.exec(text.slice(caret))?.[0] ?? '').length;
  const rest = before.slice(0, from).trimEnd();
  // After an operand (a name, a value, a closing bracket): an operator, or a joiner after a comparison.
  if (word === '' && rest !== '' && /[\w"')\]]$/.test(rest)) {
    const compared = /(!=|>=|<=|!~|[=<>~])\s*[^\s=<>~!?]+$/.test(rest);
    return { from, to, items: compared ? JOINERS : [...OPERATORS, ...JOINERS] };
  }
  const colon = word.indexOf(':');
  if (colon >= 0) {
    const path = word.slice(0, colon).split('.');
    const { field, body } = walk(path, ctx);
    return { from: from + colon, to, items: starting(modifiers(field, ctx.mode, body), word.slice(colon)) };
  }
  if (word.startsWith('@') && !word.includes('.')) {
    return { from, to, items: starting([...ROOTS, ...MACROS.map((m) => ({ text: m, detail: 'macro' }))], word) };
  }
  const segments = word.split('.');
  const typed = segments.pop() ?? '';
  const at = walk(segments, ctx);
  const names = at.fixed ?? (at.scope ? namesOf(at.scope, at.body ? { ...ctx, collections: [] } : ctx) : []);
  return { from: from + word.length - typed.length, to, items: starting([...names, ...(segments.length === 0 ? ROOTS : [])], typed) };
}
