// `$app.db()` on the host: the SQL PocketBase's query builder (dbx, built on the hook's side by
// hooks/worker/db.cjs) hands over, run on Deskbase's store. dbx's raw SQL conventions are read here,
// outside quoted text: `{:name}` a named parameter (bound, never spliced), `{{table}}` a quoted table
// name, `[[column]]` (or `[[table.column]]`) a quoted column name, and backtick-quoted names (SQLite's
// MySQL-style quoting, which PocketBase apps write) as standard double-quoted ones, so the same text
// runs on PostgreSQL where its SQL does. Inside a write's transaction (a migration, a hook running in
// a write) the statement runs in it; otherwise a read runs under a query budget of its own and an
// `execute` in a transaction of its own (and so does a read whose statement is not a SELECT: it may
// write), so a query from a hook is bounded like any request's.
import { badRequest } from '../errors.js';
import { budgetError, MAX_RESPONSE_BYTES, QUERY_BUDGET_MS, underDeadline } from '../core/query-budget.js';
import { QueryBudget, type Store, type WriteTx } from '../store/db.js';
import { stoppable } from '../core/stoppable.js';
import type { Core } from '../core/index.js';
import { isRecord } from '../json-object.js';

/** A query as the builder hands it over: dbx's SQL text and its named parameters. */
export interface DbQuery {
  sql: string;
  params?: Record<string, unknown>;
  /** `all`/`one` read rows (`one` at most one); `execute` runs a statement and answers its changes. */
  mode: 'all' | 'one' | 'execute';
}

type Dialect = Core['dialect'];

export interface DbContext {
  store: Store;
  dialect: Dialect;
  /** The write transaction the calling hook or migration runs in, if any. */
  tx?: WriteTx | null;
  budgetMs?: number;
  readBytes?: number;
  /** The calling hook's EventScope.stopped: a transaction of the query's own rolls back once it fired. */
  stopped?: AbortSignal;
}

export type DbAnswer = { rows: Record<string, unknown>[] } | { rowsAffected: number };

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** `a.b` → `"a"."b"`; `*` stays a star. */
const quotedPath = (name: string) => name.trim().split('.').map((part) => (part === '*' ? '*' : quoted(part.trim()))).join('.');

/** One parameter as the store binds it: texts, numbers and null (store/codec.ts), as dbx would send them to SQLite. */
function boundValue(name: string, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  if (value instanceof Date) return value.toISOString().replace('T', ' ');
  if (value instanceof Uint8Array) throw badRequest(`$app.db(): the parameter {:${name}} is binary, which Deskbase does not bind; pass a text.`);
  if (typeof value === 'object') return JSON.stringify(value);
  throw badRequest(`$app.db(): the parameter {:${name}} is a ${typeof value}, which cannot be bound.`);
}

/**
 * dbx's SQL text → the store's: placeholders as `?` with their values in order, names quoted, the
 * dialect's statement form (PostgreSQL's `$n`). Quoted text and comments are kept as they are.
 */
export function translateDbx(text: string, params: Record<string, unknown> = {}, dialect: Dialect): { sql: string; values: (string | number | null)[] } {
  if (typeof text !== 'string' || text.trim() === '') throw badRequest('$app.db(): the query is empty.');
  let out = '';
  const values: (string | number | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const rest = text.startsWith.bind(text);
    if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(c, j);
        if (k === -1) throw badRequest(`$app.db(): unterminated ${c} in the query.`);
        if (text[k + 1] === c) j = k + 2;
        else {
          j = k;
          break;
        }
      }
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '`') {
      const k = text.indexOf('`', i + 1);
      if (k === -1) throw badRequest('$app.db(): unterminated ` in the query.');
      out += quoted(text.slice(i + 1, k));
      i = k;
    } else if (rest('--', i)) {
      const k = text.indexOf('\n', i);
      const end = k === -1 ? text.length : k;
      out += text.slice(i, end);
      i = end - 1;
    } else if (rest('/*', i)) {
      const k = text.indexOf('*/', i + 2);
      const end = k === -1 ? text.length : k + 2;
      out += text.slice(i, end);
      i = end - 1;
    } else if (rest('{{', i) || rest('[[', i)) {
      const close = c === '{' ? '}}' : ']]';
      const k = text.indexOf(close, i + 2);
      if (k === -1) throw badRequest(`$app.db(): unterminated ${c}${c} in the query.`);
      out += quotedPath(text.slice(i + 2, k));
      i = k + 1;
    } else if (rest('{:', i)) {
      const k = text.indexOf('}', i + 2);
      const name = k === -1 ? '' : text.slice(i + 2, k);
      if (!/^\w+$/.test(name)) throw badRequest(`$app.db(): a placeholder near "${text.slice(i, i + 20)}" is not {:name}.`);
      if (!Object.prototype.hasOwnProperty.call(params, name)) throw badRequest(`$app.db(): the query names {:${name}} but no value was bound for it (bind({${name}: ...})).`);
      values.push(boundValue(name, params[name]));
      out += '?';
      i = k;
    } else if (c === '?') {
      throw badRequest('$app.db(): write parameters as {:name} and bind them (dbx has no "?" placeholders).');
    } else {
      out += c;
    }
  }
  return { sql: dialect.statement(out), values };
}

/** Runs one query of `$app.db()` (see the top of this file). */
export async function runDbQuery(ctx: DbContext, query: DbQuery): Promise<DbAnswer> {
  if (!isRecord(query) || !['all', 'one', 'execute'].includes(query.mode)) throw badRequest('$app.db(): not a query.');
  const params = isRecord(query.params) ? query.params : {};
  const { sql, values } = translateDbx(query.sql, params, ctx.dialect);
  // the store owns transactions: one ended or cut back from inside would leave memory and the journal apart
  const control = TRANSACTION_CONTROL.exec(sql);
  if (control !== null) throw badRequest(`$app.db(): ${control[1].toUpperCase()} is not run: use $app.runInTransaction.`);
  const budgetMs = ctx.budgetMs ?? QUERY_BUDGET_MS;
  const tx = ctx.tx ?? null;
  if (query.mode === 'execute') {
    if (tx) return { rowsAffected: (await tx.run(sql, values)).changes };
    try {
      const { changes } = await ctx.store.write(stoppable(ctx.stopped, (own: WriteTx) => own.run(sql, values)), new QueryBudget(budgetMs, ctx.readBytes ?? MAX_RESPONSE_BYTES));
      return { rowsAffected: changes };
    } catch (err) {
      throw budgetError(err, budgetMs);
    }
  }
  // `one` reads the first row only, as dbx's One does (the statement is not rewritten: a LIMIT is the query's)
  const read = async (db: Pick<WriteTx, 'all' | 'get'>) => {
    if (query.mode === 'all') return db.all<Record<string, unknown>>(sql, values);
    const row = await db.get<Record<string, unknown>>(sql, values);
    return row === undefined ? [] : [row];
  };
  // inside a write: its rows charged to the write's budget (a hook's query may read without end)
  if (tx) return { rows: await read(tx.counted ?? tx) };
  if (READS_ONLY.test(sql)) return { rows: await underDeadline(ctx.store, budgetMs, read, ctx.readBytes ?? MAX_RESPONSE_BYTES) };
  // dbx's All and One run whatever they are given: a statement that may write (`DELETE ... RETURNING`,
  // a `WITH` before an UPDATE, a PRAGMA) runs in a transaction of its own, as an execute does, so what
  // it changes is journaled and seen (the store's versions, the sessions kept: core/session-store.ts)
  try {
    return { rows: await ctx.store.write(stoppable(ctx.stopped, (own: WriteTx) => read(own.counted ?? own)), new QueryBudget(budgetMs, ctx.readBytes ?? MAX_RESPONSE_BYTES)) };
  } catch (err) {
    throw budgetError(err, budgetMs);
  }
}

/** A statement that begins, ends or cuts back a transaction (SQLite's and PostgreSQL's words for it). */
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|START\s+TRANSACTION|ABORT|PREPARE\s+TRANSACTION)\b/i;

/** A statement that can only read: a SELECT (a write is never one on SQLite; a PostgreSQL function it calls is the function's own). */
const READS_ONLY = /^\s*SELECT\b/i;
