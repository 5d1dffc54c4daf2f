// Server-side record reads for code the owner wrote (hooks' $app.findRecordsByFilter and friends): a
// filter with `{:name}` placeholders, a sort, a limit and offset, no API rule (PocketBase's app reads
// bypass rules), compiled by the same compiler as every filter.
import { ident } from '../filter/sql.js';
import type { ReadDb } from '../store/db.js';
import { compileFilter, compileSort, type Dialect } from '../rules/compile.js';
import { compileDialect } from './access.js';
import { compiling } from './filter-errors.js';
import type { Collection, Lookup, Row, SqlValue } from '../model/types.js';

const NO_REQUEST = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} } as const;

export interface FindQuery {
  filter: string;
  sort?: string;
  /** 0: no limit. */
  limit?: number;
  offset?: number;
  params?: Record<string, unknown>;
}

function where(c: Collection, q: FindQuery, lookup: Lookup, dialect?: Dialect) {
  // guarded: the query deadline is checked inside the statement (filter/guard.ts), as for a client's filter
  const ctx = { collection: c, alias: 'r', lookup, request: { ...NO_REQUEST }, mode: 'rule' as const, params: q.params ?? {}, guard: true, ...compileDialect({ dialect }) };
  const w = compiling(() => compileFilter(q.filter, ctx));
  const o = q.sort ? compiling(() => compileSort(q.sort!, ctx)) : null;
  return { w, o };
}

/** The records of `c` matching `q` (every record for an empty filter), in `sort` order, then insertion order. */
export async function findRecords(db: ReadDb, c: Collection, q: FindQuery, lookup: Lookup, dialect?: Dialect): Promise<Row[]> {
  const { w, o } = where(c, q, lookup, dialect);
  const order = o && o.sql !== '' ? `${o.sql}, r._rowid_ ASC` : 'r._rowid_ ASC';
  const params: SqlValue[] = [...w.params, ...(o?.params ?? [])];
  const limit = q.limit && q.limit > 0 ? ` LIMIT ${Math.trunc(q.limit)}` : q.offset ? ' LIMIT -1' : '';
  const offset = q.offset && q.offset > 0 ? ` OFFSET ${Math.trunc(q.offset)}` : '';
  const sql = `SELECT r.* FROM ${ident(c.name)} AS r WHERE ${w.sql} ORDER BY ${order}${dialect?.name === 'postgres' && limit === ' LIMIT -1' ? '' : limit}${offset}`;
  return db.all<Row>(sql, params);
}

export async function countRecords(db: ReadDb, c: Collection, q: FindQuery, lookup: Lookup, dialect?: Dialect): Promise<number> {
  const { w } = where(c, q, lookup, dialect);
  return Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(c.name)} AS r WHERE ${w.sql}`, w.params))?.n ?? 0);
}
