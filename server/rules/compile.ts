// The filter/rule compiler's public API: a filter or rule → an SQL condition over the caller's row alias,
// a sort → an ORDER BY body. It parses with the filter language (server/filter) and resolves
// identifiers with the record resolver. Output never adds JOINs to the caller's query (multi-valued
// paths are correlated subqueries), so `SELECT r.* FROM "posts" AS r WHERE (<rule>) AND (<filter>)` and
// its COUNT(*) stay correct without DISTINCT. Every value is a bound parameter.
//
// Errors: syntax and resolution errors are FilterError (message with position, for rule validation and
// the admin UI; core/filter-errors.ts says what a client gets); a non-superuser client filter or sort
// naming @collection / @request is ApiError 403, as in PocketBase.
import { isSuperuser, type Collection, type Lookup, type RequestInfo } from '../model/types.js';
import { ApiError } from '../errors.js';
import { compileCondition } from '../filter/condition.js';
import { SQLITE, type Dialect } from '../filter/dialect.js';
import { FilterError } from '../filter/filter-error.js';
import type { CompileScope } from '../filter/field-resolver.js';
import { AliasAllocator } from '../filter/joins.js';
import { MAX_FILTER_LENGTH } from '../filter/limits.js';
import { compileOrder } from '../filter/order.js';
import { parseFilter, type ParseOptions } from '../filter/parser.js';
import { parseSort } from '../filter/sort.js';
import { compiled, type CompiledSql } from '../filter/sql.js';
import { createRecordResolver } from './record-resolver.js';

// The dialect objects, for core/ (this file is the compiler's one entry): what core writes differently per engine.
export { dialectOf, POSTGRES, SQLITE, type Dialect, type DialectName } from '../filter/dialect.js';

export type CompileMode = 'rule' | 'filter';

export interface CompileContext {
  /** The collection whose rows are filtered. */
  collection: Collection;
  /** SQL alias of that row source in the caller's query, e.g. "r" (letters, digits, `_`). */
  alias: string;
  /** Other collections by id or name (relations, back-relations, @collection). */
  lookup: Lookup;
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
  /**
   * Check the request's query deadline inside the SQL (filter/guard.ts): what the server does for
   * everything a request drives. Off, the SQL is the plain translation.
   */
  guard?: boolean;
  /**
   * The SQL written: SQLite (the default) or PostgreSQL (filter/dialect.ts). PostgreSQL gets no guards:
   * it enforces the query budget itself (`statement_timeout`). Its text still has `?` placeholders and
   * names as given: the statement they end up in goes through `dialect.statement()`.
   */
  dialect?: Dialect;
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
    return { sql: (ctx.dialect ?? SQLITE).true.text, params: [] };
  }
  const tree = parseFilter(src, options);
  return compiled(compileCondition(tree, scopeOf(ctx, restricted)));
}

/**
 * A sort (`-created,title`, relation and json paths, `@random`, `@rowid`) → the body of an ORDER BY,
 * e.g. `r."created" DESC, r."title" ASC`; '' for a blank sort.
 */
export function compileSort(src: string, ctx: CompileContext): CompiledSql {
  const restricted = checkAccess(src, ctx);
  return compiled(compileOrder(parseSort(src), scopeOf(ctx, restricted)));
}

/**
 * Null when `src` compiles as a rule of `collection`, else the raw error (for validation_invalid_rule).
 * `dialect`: the engine the rule will run on (PostgreSQL refuses a few strftime() formats SQLite has).
 */
export function checkRule(src: string, collection: Collection, lookup: Lookup, dialect?: Dialect): string | null {
  const request: RequestInfo = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };
  try {
    compileFilter(src, { collection, alias: 'r', lookup, request, mode: 'rule', ...(dialect === undefined ? {} : { dialect }) });
    return null;
  } catch (err) {
    if (err instanceof FilterError) return err.message;
    throw err;
  }
}

/** PocketBase's loose substring check on the raw parameter, even inside quotes. Returns "restricted". */
function checkAccess(src: string, ctx: CompileContext): boolean {
  if (ctx.mode !== 'filter' || isSuperuser(ctx.request.auth)) return false;
  if (src.includes('@collection')) throw new ApiError(403, 'Only superusers can filter by @collection.');
  if (src.includes('@request')) throw new ApiError(403, 'Only superusers can filter by @request.');
  return true;
}

function scopeOf(ctx: CompileContext, restricted: boolean): CompileScope {
  const aliases = new AliasAllocator();
  const now = ctx.now ?? new Date();
  const dialect = ctx.dialect ?? SQLITE;
  const guard = ctx.guard === true && dialect.guards;
  // named one by one: a spread followed by keys it lacks makes V8 build the object's shape anew every
  // call (about 0.8 µs a key here, a third of a small rule's compile)
  const resolver = createRecordResolver({ collection: ctx.collection, alias: ctx.alias, lookup: ctx.lookup, request: ctx.request, restricted, aliases, now, guarded: guard, dialect });
  const scope: CompileScope = guard ? { resolver, aliases, now, params: ctx.params, guard } : { resolver, aliases, now, params: ctx.params };
  if (dialect !== SQLITE) scope.dialect = dialect;
  return scope;
}
