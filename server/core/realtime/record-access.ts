// Whether one realtime subscriber shape may see a changed record, and what it sees: PocketBase's
// realtimeCanAccessRecord (the topic's rule as the subscriber, `@request.context = "realtime"`, then
// the subscription's own `filter`) and its message (`expand` and `fields` as the REST API applies them).
// One call serves every subscriber with the same collection, rule, identity and options.
import { ident, type CompiledSql } from '../../filter/sql.js';
import { compileFilter, SQLITE, type Dialect } from '../../rules/compile.js';
import type { ReadDb } from '../../store/db.js';
import { compileDialect, matchesAll, ruleWhereOrNull } from '../access.js';
import { presentRecords } from '../record-response.js';
import { requestContext, type RequestContext } from '../request-context.js';
import type { AuthInfo, Collection, Lookup, Row, SqlValue } from '../../model/types.js';
import type { SubscriptionOptions } from './topics.js';

/** The request a subscription stands for: a GET by its identity with its options' query and headers. */
export function subscriberContext(auth: AuthInfo | null, options: SubscriptionOptions, lookup: Lookup, dialect: Dialect): RequestContext {
  const ctx = requestContext({ auth, method: 'GET', query: options.query, headers: Object.entries(options.headers) }, lookup, dialect);
  return { ...ctx, request: { ...ctx.request, context: 'realtime' } };
}

/** The subscription's rule and filter as SQL over `r`; null when the rule is locked to superusers. */
function conditions(c: Collection, rule: 'listRule' | 'viewRule', ctx: RequestContext): CompiledSql[] | null {
  const where = ruleWhereOrNull(c, rule, ctx);
  if (where === null) return null;
  const conds = matchesAll(where) ? [] : [where];
  const filter = ctx.request.query.filter;
  if (filter !== undefined && filter.trim() !== '') {
    conds.push(compileFilter(filter, { collection: c, alias: 'r', lookup: ctx.lookup, request: ctx.request, mode: 'filter', guard: true, ...compileDialect(ctx) }));
  }
  return conds;
}

/**
 * The record's values as the event carries them, as a one-row table `r`: the row after the write for a
 * create or update, the row before it for a delete (PocketBase checks a delete before deleting). Never
 * the live row: by the time the fan-out runs, a later write may have changed it (a batch that hides a
 * record then shows it again, two quick PATCHes), and the event would carry a version the check never
 * saw. Other collections (relations, `@collection`) are read as they are now.
 */
function rowTable(c: Collection, row: Row, dialect: Dialect): { sql: string; params: SqlValue[] } {
  const cols = Object.keys(row);
  const typed = (k: string) => dialect.typedParam(c.fields.find((f) => f.name === k)?.type ?? 'text');
  return { sql: `(SELECT ${cols.map((k) => `${typed(k)} AS ${ident(k)}`).join(', ')})`, params: cols.map((k) => row[k]) };
}

/** Whether the subscriber may see `row`, the version the event carries. Throws what compiling or the deadline throws. */
export async function mayAccess(db: ReadDb, c: Collection, rule: 'listRule' | 'viewRule', ctx: RequestContext, row: Row): Promise<boolean> {
  const conds = conditions(c, rule, ctx);
  if (conds === null) return false;
  if (conds.length === 0) return true;
  const where = conds.map((w) => `(${w.sql})`).join(' AND ');
  const table = rowTable(c, row, ctx.dialect ?? SQLITE);
  return (await db.get(`SELECT 1 AS ok FROM ${table.sql} AS r WHERE ${where}`, [...table.params, ...conds.flatMap((w) => w.params)])) !== undefined;
}

/** The event's data as this subscriber shape sees it; an expand past its cap leaves the record unexpanded. */
export async function eventData(db: ReadDb, c: Collection, action: string, row: Row, ctx: RequestContext): Promise<string> {
  return JSON.stringify({ action, record: (await presentRecords(db, c, [row], ctx, true))[0] });
}
