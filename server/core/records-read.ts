// List and view under the collection's rules, with the client's filter and sort.
import { notFound } from '../errors.js';
import { ident, type CompiledSql } from '../filter/sql.js';
import type { ReadDb } from '../store/db.js';
import { compileFilter, compileSort } from '../rules/compile.js';
import { compileDialect, matchAll, matchesAll, ruleWhere } from './access.js';
import { compiling } from './filter-errors.js';
import { defaultSortField } from './maintained-indexes.js';
import type { Page } from './request-params.js';
import type { ListContext, RuleInput } from './request-context.js';
import type { Collection, Row, SqlValue } from '../model/types.js';

/** The client's `filter`; a bad one is a 400 (see filter-errors.ts). */
function clientWhere(c: Collection, filter: string | undefined, ctx: RuleInput): CompiledSql | null {
  if (filter === undefined || filter.trim() === '') return null;
  const { request, lookup } = ctx;
  return compiling(() => compileFilter(filter, { collection: c, alias: 'r', lookup, request, mode: 'filter', guard: true, ...compileDialect(ctx) }), { param: 'filter', request });
}

function defaultSort(c: Collection): string {
  // Deskbase sorts by -created by default when the collection has it (spec); rowid breaks ties so
  // paging is stable. The maintained index on the field serves exactly this order.
  const field = defaultSortField(c);
  return field ? `r.${ident(field.name)} DESC, r._rowid_ DESC` : 'r._rowid_ ASC';
}

/** A list's WHERE (list rule and client filter) and ORDER BY (null: the client gave no sort), for the rows `r`. */
export function listQuery(c: Collection, ctx: ListContext): { where: CompiledSql; order: CompiledSql | null } {
  const q = ctx.paging;
  const { request, lookup } = ctx;
  const conds: CompiledSql[] = [ruleWhere(c, 'listRule', ctx)];
  const fw = clientWhere(c, q.filter, ctx);
  if (fw) conds.push(fw);
  const where = { sql: conds.filter((w) => !matchesAll(w)).map((w) => `(${w.sql})`).join(' AND ') || matchAll(ctx).sql, params: conds.flatMap((w) => w.params) };
  if (q.sort === undefined || q.sort.trim() === '') return { where, order: null };
  const sort = q.sort;
  const s = compiling(() => compileSort(sort, { collection: c, alias: 'r', lookup, request, mode: 'filter', guard: true, ...compileDialect(ctx) }), { param: 'sort', request });
  return { where, order: s.sql ? s : null };
}

/**
 * The page's rows. `columns`: the fields to read when the caller picked some (`fields`), beside what
 * presenting a record needs (`id`, an auth record's `emailVisibility`); null reads whole rows.
 */
export async function listRecords(db: ReadDb, c: Collection, ctx: ListContext, columns: ReadonlySet<string> | null = null): Promise<Page<Row>> {
  const q = ctx.paging;
  const { where, order } = listQuery(c, ctx);
  const whereSql = where.sql;
  const whereParams: SqlValue[] = where.params;
  const orderSql = order ? `${order.sql}, r._rowid_ ASC` : defaultSort(c);
  const orderParams: SqlValue[] = order ? order.params : [];
  const table = ident(c.name);
  const offset = (q.page - 1) * q.perPage;
  // Sorts and skips on row ids only, then reads the page's full rows (a deferred join): SQLite's
  // sorter otherwise copies every candidate row whole, and OFFSET walks whole rows. CROSS JOIN keeps the ordered ids as the outer
  // loop, so rows come out in their order; a LIMIT subquery is never flattened into a join.
  const selected = columns === null ? wholeRow(c)
    : c.fields.filter((f) => f.name === 'id' || f.name === 'emailVisibility' || columns.has(f.name)).map((f) => `r.${ident(f.name)}`).join(', ');
  // A view (views.ts) has no row ids to join on: each lookup by its `_rowid_` column would run its
  // query again (an aggregate once per row of the page), so its page is read in one pass, as on an
  // engine without the deferred join (dialect.keyJoin).
  // The first page in the default order with no condition is read directly: the default order's
  // maintained index gives its rows in order (no sorter) and nothing is skipped, so the join would only
  // add its subquery and a second lookup per row (about 8% of the page's read: 132 against 143 µs, load ~20).
  const keyJoin = ctx.dialect === undefined ? 'CROSS JOIN' : ctx.dialect.keyJoin;
  const direct = offset === 0 && order === null && matchesAll(where);
  const items = c.type === 'view' || keyJoin === undefined || direct
    ? await db.all<Row>(`SELECT ${selected} FROM ${table} AS r WHERE ${whereSql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`, [...whereParams, ...orderParams, q.perPage, offset])
    : await db.all<Row>(
      `SELECT ${selected} FROM (SELECT r._rowid_ AS k FROM ${table} AS r WHERE ${whereSql} ORDER BY ${orderSql} LIMIT ? OFFSET ?) AS p ` +
        `${keyJoin} ${table} AS r ON r._rowid_ = p.k`,
      [...whereParams, ...orderParams, q.perPage, offset],
    );
  let totalItems = -1;
  let totalPages = -1;
  if (!q.skipTotal) {
    // a short first page already tells the total
    if (q.page === 1 && items.length < q.perPage) totalItems = items.length;
    else totalItems = await countRows(db, table, matchesAll(where) ? null : whereSql, whereParams);
    totalPages = Math.ceil(totalItems / q.perPage);
  }
  return { page: q.page, perPage: q.perPage, totalItems, totalPages, items };
}

/**
 * SQLite counts a whole table by the cell counts of its smallest b-tree's pages only when the query
 * has no WHERE at all; `WHERE 1` makes it step through every row.
 */
async function countRows(db: ReadDb, table: string, whereSql: string | null, params: SqlValue[]): Promise<number> {
  const where = whereSql === null ? '' : ` WHERE ${whereSql}`;
  return Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} AS r${where}`, params))?.n ?? 0);
}

/**
 * The columns of a whole record `r`: each field named (the store then reads the statement's column names
 * once, not once per execution: statements.ts columnNames); a view collection's as its query gives them.
 */
function wholeRow(c: Collection): string {
  let columns = wholeRows.get(c);
  if (columns === undefined) {
    columns = c.type === 'view' ? 'r.*' : c.fields.map((f) => `r.${ident(f.name)}`).join(', ');
    wholeRows.set(c, columns);
  }
  return columns;
}

// Made once per definition: the registry holds each definition as it was stored and replaces it whole
// when it changes (collection-registry.ts put), so a definition object's columns never change. The
// view's SQL is kept too when its rule matches every row (its text then the same for every request:
// the statement cache finds it without hashing a new text).
const wholeRows = new WeakMap<Collection, string>();
const openViews = new WeakMap<Collection, { where: string; sql: string }>();

function viewSql(c: Collection, where: CompiledSql): string {
  if (where.params.length > 0 || !matchesAll(where)) return `SELECT ${wholeRow(c)} FROM ${ident(c.name)} AS r WHERE r."id" = ? AND (${where.sql}) LIMIT 1`;
  const kept = openViews.get(c);
  if (kept !== undefined && kept.where === where.sql) return kept.sql;
  const sql = `SELECT ${wholeRow(c)} FROM ${ident(c.name)} AS r WHERE r."id" = ? AND (${where.sql}) LIMIT 1`;
  openViews.set(c, { where: where.sql, sql });
  return sql;
}

/** A record the rule does not match answers 404 like a missing one, so existence does not leak. */
export async function viewRecord(db: ReadDb, c: Collection, id: string, ctx: RuleInput, key: 'viewRule' | 'updateRule' | 'deleteRule' = 'viewRule'): Promise<Row> {
  const w = ruleWhere(c, key, ctx);
  const row = await db.get<Row>(viewSql(c, w), [id, ...w.params]);
  if (!row) throw notFound();
  return row;
}

/** The stored row of a record by id, its fields named (wholeRow: the store reads the column names once per statement, not per row). */
export function getRow(db: ReadDb, c: Collection, id: string): Promise<Row | undefined> {
  return db.get<Row>(`SELECT ${wholeRow(c)} FROM ${ident(c.name)} AS r WHERE r."id" = ?`, [id]);
}
