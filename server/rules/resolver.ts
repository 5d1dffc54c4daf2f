// The filter/rule compiler's public API: a filter or rule → an SQL condition over the caller's row alias,
// a sort → an ORDER BY body. Output never adds JOINs to the caller's query (multi-valued paths are
// correlated subqueries), so `SELECT r.* FROM "posts" AS r WHERE (<rule>) AND (<filter>)` and its
// COUNT(*) stay correct without DISTINCT. Every value is a bound parameter.
//
// Errors: syntax and resolution errors are FilterError (message with position, for rule validation and
// the admin UI; map them to a 400 for clients, see toApiError); a non-superuser client filter or sort
// naming @collection / @request is ApiError 403, as in PocketBase.
import { isSuperuser, type Collection, type RequestInfo, type SqlValue } from '../core/types.js';
import { ApiError, badRequest } from '../errors.js';
import type { Group } from '../filter/ast.js';
import type { ParseCache } from '../filter/cache.js';
import { FilterError, quote } from '../filter/errors.js';
import { MAX_FILTER_LENGTH } from '../filter/limits.js';
import { parseFilter, type ParseOptions } from '../filter/parser.js';
import { parseSort } from '../filter/sort.js';
import { compileRoot } from './conditions.js';
import { AliasAllocator, JoinSet } from './joins.js';
import { compileSortItems } from './sort.js';
import type { Frag } from './sql.js';
import type { State } from './state.js';

export type CompileMode = 'rule' | 'filter';

export interface CompileContext {
  /** The collection whose rows are filtered. */
  collection: Collection;
  /** SQL alias of that row source in the caller's query, e.g. "r" (letters, digits, `_`). */
  alias: string;
  /** Other collections by id or name (relations, back-relations, @collection). */
  lookup(idOrName: string): Collection | undefined;
  /** The values `@request.*` reads. */
  request: RequestInfo;
  /**
   * 'rule': API rules and server-side filters (hidden fields allowed, joins unrestricted).
   * 'filter': the client `filter` / `sort` parameters: at most MAX_FILTER_LENGTH characters and, unless
   * `request.auth` is a superuser, no @collection / @request (403), no hidden fields, joined
   * collections must be listable and their list rules apply, hidden e-mails read as NULL.
   */
  mode: CompileMode;
  /** Time for the datetime macros (default: now). */
  now?: Date;
  /** Values of `{:name}` placeholders, bound as parameters (server-side filters only). */
  params?: Record<string, unknown>;
  /** Shared parse cache (the server keeps one); parses every time without it. */
  cache?: ParseCache;
}

export interface CompiledSql {
  sql: string;
  params: SqlValue[];
}

function done(frag: Frag): CompiledSql {
  return { sql: frag.text, params: [...frag.params] };
}

/**
 * A filter or rule → an SQL condition. A blank source (the "" rule: everyone) gives `1`; callers handle
 * the null rule (superusers only) themselves.
 */
export function compileFilter(src: string, ctx: CompileContext): CompiledSql {
  const restricted = checkAccess(src, ctx);
  const options: ParseOptions = { placeholders: ctx.params !== undefined };
  if (ctx.mode === 'filter') options.maxLength = MAX_FILTER_LENGTH;
  if (src.trim() === '' && (options.maxLength === undefined || src.length <= options.maxLength)) {
    return { sql: '1', params: [] };
  }
  const tree = parse(src, ctx, options);
  return done(compileRoot(newState(ctx, restricted, new AliasAllocator()), tree));
}

/**
 * A sort (`-created,title`, relation and json paths, `@random`, `@rowid`) → the body of an ORDER BY,
 * e.g. `r."created" DESC, r."title" ASC`; '' for a blank sort.
 */
export function compileSort(src: string, ctx: CompileContext): CompiledSql {
  const restricted = checkAccess(src, ctx);
  return done(compileSortItems(newState(ctx, restricted, new AliasAllocator()), parseSort(src)));
}

/** Null when `src` compiles as a rule of `collection`, else the raw error (for validation_invalid_rule). */
export function checkRule(src: string, collection: Collection, lookup: (idOrName: string) => Collection | undefined): string | null {
  const request: RequestInfo = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };
  try {
    compileFilter(src, { collection, alias: 'r', lookup, request, mode: 'rule' });
    return null;
  } catch (err) {
    if (err instanceof FilterError) return err.message;
    throw err;
  }
}

/** A FilterError becomes PocketBase's generic 400 (no detail for clients); anything else is returned as is. */
export function toApiError(err: unknown): unknown {
  return err instanceof FilterError ? badRequest() : err;
}

/** PocketBase's loose substring check on the raw parameter, even inside quotes. Returns "restricted". */
function checkAccess(src: string, ctx: CompileContext): boolean {
  if (ctx.mode !== 'filter' || isSuperuser(ctx.request.auth)) return false;
  if (src.includes('@collection')) throw new ApiError(403, 'Only superusers can filter by @collection.');
  if (src.includes('@request')) throw new ApiError(403, 'Only superusers can filter by @request.');
  return true;
}

function parse(src: string, ctx: CompileContext, options: ParseOptions): Group {
  return ctx.cache === undefined ? parseFilter(src, options) : ctx.cache.parse(src, options);
}

function newState(ctx: CompileContext, restricted: boolean, aliases: AliasAllocator): State {
  const now = ctx.now ?? new Date();
  const state: State = {
    ctx,
    restricted,
    now,
    aliases,
    joins: new JoinSet(aliases),
    listRule: (collection, alias, pos) => compileListRule(state, collection, alias, pos),
  };
  return state;
}

/** The list rule of a collection a restricted client filter joins, over the joined row `alias`. */
function compileListRule(parent: State, collection: Collection, alias: string, pos: number): Frag | null {
  const rule = collection.listRule;
  if (rule === null) throw new FilterError(`fields of ${quote(collection.name)} can be filtered only by superusers`, pos);
  if (rule.trim() === '') return null;
  const ctx: CompileContext = {
    collection,
    alias,
    lookup: (idOrName) => parent.ctx.lookup(idOrName),
    request: parent.ctx.request,
    mode: 'rule',
    now: parent.now,
    cache: parent.ctx.cache,
  };
  try {
    return compileRoot(newState(ctx, false, parent.aliases), parse(rule, ctx, {}));
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    throw new FilterError(`invalid list rule of ${quote(collection.name)} (${err.message})`, pos);
  }
}
