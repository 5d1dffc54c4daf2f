// One request as core sees it, built once per request (the HTTP layer hands over plain values) and
// carried through every read and write: who is asking and what rules read of the request (`@request.*`),
// the collections, and the request's `expand`, `fields` and list parameters, parsed here.
import { setOwn } from './own-keys.js';
import { parseExpand, parseFields, parsePaging, type ExpandTree, type FieldsTree, type Paging } from './request-params.js';
import type { AuthInfo, Lookup, RequestInfo } from '../model/types.js';
import { SQLITE, type Dialect } from '../rules/compile.js';

/** What the HTTP layer knows of a request, in plain values. */
export interface RequestInput {
  auth: AuthInfo | null;
  method: string;
  /** Query parameters, the first value of each, as own keys. */
  query: Record<string, string>;
  /** Request headers as received (credentials are kept out of what rules see). */
  headers: Iterable<[string, string]>;
  /** The parsed body, where rules may read it before a write resolves it (sign-in). */
  body?: Record<string, unknown>;
  /** The client address's key (scrypt-pool.ts clientKey): who shared costs (password hashes) are charged to. */
  client?: string;
}

/** What rules need: the request they read as `@request.*`, and the collections they may name. */
export interface RuleInput {
  readonly request: RequestInfo;
  readonly lookup: Lookup;
  /** The SQL rules and filters compile to (the store's: env.ts); SQLite when absent. */
  readonly dialect?: Dialect;
}

export interface RequestContext extends RuleInput {
  /** The `expand` parameter (empty: nothing to expand). */
  readonly expand: ExpandTree;
  /** The `fields` parameter (null: every key). */
  readonly fields: FieldsTree | null;
}

/** A list request: also page, perPage, sort, filter and skipTotal. */
export interface ListContext extends RequestContext {
  readonly paging: Paging;
}

/** `X-Token` → `x_token`: how rules name headers (`@request.headers.x_token`), as in PocketBase. */
function ruleHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of headers) {
    if (key === 'authorization' || key === 'cookie') continue; // credentials stay out of rules
    setOwn(out, key.toLowerCase().replace(/-/g, '_'), value);
  }
  return out;
}

/** Throws the 400 of a malformed `fields` parameter before any work (or write) is done. */
/**
 * `dialect`: the engine's (env.ts), always given: a context built without it compiled its rules for
 * SQLite, and PostgreSQL refused them (a 500 from a batch's createRule on the team server).
 */
export function requestContext(input: RequestInput, lookup: Lookup, dialect: Dialect): RequestContext {
  const { expand, fields } = input.query;
  return {
    request: {
      auth: input.auth,
      method: input.method.toUpperCase(),
      context: 'default',
      body: input.body ?? {},
      query: input.query,
      headers: ruleHeaders(input.headers),
      client: input.client,
    },
    lookup,
    ...(dialect === SQLITE ? {} : { dialect }),
    expand: expand === undefined || expand.trim() === '' ? new Map() : parseExpand(expand),
    fields: fields ? parseFields(fields) : null,
  };
}

export function listContext(input: RequestInput, lookup: Lookup, dialect: Dialect): ListContext {
  // the key added to the context made, not a spread of it into a new object with a key it lacks: V8
  // builds that on its slow path (1.0 → 0.35 µs a list context on node 20 here)
  const ctx = requestContext(input, lookup, dialect) as RequestContext & { paging: Paging };
  ctx.paging = parsePaging(input.query);
  return ctx;
}

/** Work the server does for itself (setup, tests): no caller, no parameters. */
export function internalContext(lookup: Lookup, dialect: Dialect): RequestContext {
  return requestContext({ auth: null, method: 'POST', query: {}, headers: [] }, lookup, dialect);
}

/** The same request with rules reading `body` as `@request.body` (a write's resolved submission). */
export function withBody<C extends RuleInput>(ctx: C, body: Record<string, unknown>): C {
  return { ...ctx, request: { ...ctx.request, body } };
}

/** The same request as `auth` (the record a sign-in just authenticated). */
export function asCaller<C extends RuleInput>(ctx: C, auth: AuthInfo): C {
  return { ...ctx, request: { ...ctx.request, auth } };
}
