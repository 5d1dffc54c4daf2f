// Where the logs are kept and how they are read: PocketBase's `_logs` (core/log_model.go, log_query.go)
// on whichever store the logs were given (server/logs/index.ts decides: the desktop's own database in
// `<data folder>/logs/`, a team server's database). Its rows are read as a collection of its own
// (`logsCollection`), so `filter` and `sort` go through the one filter compiler (rules/compile.ts) with
// its limits, its errors and its deadline guards, as a list of records does, on both engines.
import type { Collection, RequestInfo, Row } from '../model/types.js';
import type { ReadDb, Store, WriteTx } from '../store/db.js';
import { compileFilter, compileSort, type Dialect } from '../rules/compile.js';
import { compiling } from '../core/filter-errors.js';
import { underDeadline } from '../core/query-budget.js';
import { defineField } from '../core/fields/index.js';
import { autodateField, primaryKeyField } from '../core/fields/system-fields.js';
import { defaults } from '../core/collections-defaults.js';
import { createTableSql } from '../core/collections-ddl.js';
import { parsePaging, type Page } from '../core/request-params.js';
import { notFound } from '../errors.js';

export const LOGS_TABLE = '_logs';

/** One log as stored and as the API answers it (PocketBase's Log: id, created, data, message, level). */
export interface LogRecord {
  id: string;
  created: string;
  data: Record<string, unknown>;
  /** `data` as JSON, when the logger made it already (written as it is). */
  dataJson?: string;
  message: string;
  level: number;
}

/** Hourly counts (PocketBase's LogsStatsItem). */
export interface LogsStatsItem {
  date: string;
  total: number;
}

/** `_logs` as a collection: what the filter compiler resolves `id`, `created`, `level`, `message`, `data.*` against. */
export function logsCollection(): Collection {
  const c = defaults.newCollection('base', LOGS_TABLE, '_pb_logs_', false);
  const field = (input: Record<string, unknown>, index: number) => defineField(input, index, { collectionType: 'base', lookup: () => undefined }).field;
  c.system = true;
  c.fields = [
    primaryKeyField(),
    autodateField('created', false),
    field({ name: 'level', type: 'number' }, 2),
    field({ name: 'message', type: 'text' }, 3),
    field({ name: 'data', type: 'json', maxSize: 0 }, 4),
  ];
  return c;
}

const COLUMNS = '"id", "created", "data", "message", "level"';
const ROW_ORDER = '"_rowid_"';
/** Rows per INSERT statement: 5 values each, well under SQLite's 32,766 bound parameters. */
const INSERT_ROWS = 100;
/** Rows per retention DELETE: each one a short stretch of the event loop on the desktop. */
const DELETE_ROWS = 2_000;

/** The INSERT of `rows` logs, made once per count (a full chunk's every time). */
const insertSqls = new Map<number, string>();
function insertSql(rows: number): string {
  let sql = insertSqls.get(rows);
  if (sql === undefined) {
    sql = `INSERT INTO "${LOGS_TABLE}" (${COLUMNS}) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}`;
    insertSqls.set(rows, sql);
  }
  return sql;
}

function fromRow(row: Row): LogRecord {
  let data: Record<string, unknown> = {};
  if (typeof row.data === 'string' && row.data !== '') {
    try {
      const parsed: unknown = JSON.parse(row.data);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
    } catch { /* written by this module only: always an object */ }
  }
  return { id: String(row.id), created: String(row.created), data, message: String(row.message ?? ''), level: Number(row.level ?? 0) };
}

export class LogStore {
  readonly collection = logsCollection();

  constructor(
    readonly store: Store,
    readonly dialect: Dialect,
    private readonly budgetMs: number,
    /**
     * Whether a batch's INSERTs may let the loop turn between them, its transaction open: only on a
     * store of the logs' own (the desktop's), whose write turn nothing else waits for; a team server's
     * logs take the data's write turn, held no longer than the batch's round trips.
     */
    private readonly turnsInBatch = false,
  ) {}

  /** Creates `_logs` and its index on `created` when missing (several team-server nodes may start at once). */
  async ensureTable(): Promise<void> {
    await this.store.write(async (tx) => {
      if (this.dialect.name === 'postgres') await tx.run('SELECT pg_advisory_xact_lock(?)', [0x64626c67]);
      const exists = this.dialect.name === 'postgres'
        ? await tx.get('SELECT 1 AS "one" FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?', [LOGS_TABLE])
        : await tx.get("SELECT 1 AS \"one\" FROM sqlite_master WHERE type = 'table' AND name = ?", [LOGS_TABLE]);
      if (exists === undefined) for (const statement of createTableSql(this.dialect, LOGS_TABLE, this.collection.fields)) await tx.run(statement);
      await tx.run(`CREATE INDEX IF NOT EXISTS "_logs_created" ON "${LOGS_TABLE}" ("created")`);
    });
  }

  /**
   * Appends logs in one transaction (one journal entry, one sync): a few multi-row INSERTs, on a store
   * of the logs' own each in a turn of the loop of its own.
   */
  async insert(logs: readonly LogRecord[]): Promise<void> {
    if (logs.length === 0) return;
    await this.store.write(async (tx) => {
      for (let at = 0; at < logs.length; at += INSERT_ROWS) {
        if (at > 0 && this.turnsInBatch) await new Promise((resolve) => setImmediate(resolve));
        const end = Math.min(logs.length, at + INSERT_ROWS);
        const params: (string | number)[] = [];
        for (let i = at; i < end; i++) {
          const l = logs[i];
          params.push(l.id, l.created, l.dataJson ?? JSON.stringify(l.data), l.message, l.level);
        }
        await tx.run(insertSql(end - at), params);
      }
    });
  }

  /**
   * Deletes the logs created at or before `before` (an ISO time) or below `minLevel`, a few thousand rows
   * per transaction, so no one stretch of work holds the desktop's loop or the write turn for long.
   */
  async deleteOld(before: string, minLevel: number): Promise<number> {
    let total = 0;
    for (;;) {
      const changes = await this.store.write(async (tx: WriteTx) => (await tx.run(
        `DELETE FROM "${LOGS_TABLE}" WHERE ${ROW_ORDER} IN (SELECT ${ROW_ORDER} FROM "${LOGS_TABLE}" WHERE "created" <= ? OR "level" < ? LIMIT ${DELETE_ROWS})`,
        [before, minLevel],
      )).changes);
      total += changes;
      if (changes < DELETE_ROWS) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Deletes the oldest `count` logs (a desktop log database that reached its size cap makes room so). */
  async deleteOldest(count: number): Promise<void> {
    await this.store.write(async (tx) => {
      await tx.run(`DELETE FROM "${LOGS_TABLE}" WHERE ${ROW_ORDER} IN (SELECT ${ROW_ORDER} FROM "${LOGS_TABLE}" ORDER BY ${ROW_ORDER} LIMIT ?)`, [count]);
    });
  }

  /** `GET /api/logs`: PocketBase's list (page, perPage, sort, filter, skipTotal) over every log kept. */
  async list(query: Readonly<Record<string, string>>, request: RequestInfo): Promise<Page<LogRecord>> {
    const paging = parsePaging(query);
    const where = this.where(paging.filter ?? '', request);
    const sort = compiling(() => compileSort(paging.sort ?? '', this.context(request)), { param: 'sort', request });
    const order = sort.sql === '' ? `r.${ROW_ORDER}` : `${sort.sql}, r.${ROW_ORDER}`;
    return underDeadline(this.store, this.budgetMs, async (db: ReadDb) => {
      const rows = await db.all<Row>(
        `SELECT ${COLUMNS.replace(/"(\w+)"/g, 'r."$1"')} FROM "${LOGS_TABLE}" AS r WHERE (${where.sql}) ORDER BY ${order} LIMIT ? OFFSET ?`,
        [...where.params, ...sort.params, paging.perPage, (paging.page - 1) * paging.perPage],
      );
      let totalItems = -1;
      if (!paging.skipTotal) {
        const count = await db.get<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "${LOGS_TABLE}" AS r WHERE (${where.sql})`, where.params);
        totalItems = Number(count?.n ?? 0);
      }
      return {
        page: paging.page,
        perPage: paging.perPage,
        totalItems,
        totalPages: totalItems < 0 ? -1 : Math.ceil(totalItems / paging.perPage),
        items: rows.map(fromRow),
      };
    });
  }

  /** `GET /api/logs/stats`: how many logs each hour holds (PocketBase's `strftime('%Y-%m-%d %H:00:00', created)`), oldest first. */
  async stats(filter: string, request: RequestInfo): Promise<LogsStatsItem[]> {
    const where = this.where(filter, request);
    // the stored time is 'YYYY-MM-DD HH:MM:SS.sssZ': its hour is its first 13 characters, on both engines
    const hour = `substr(r."created", 1, 13)`;
    return underDeadline(this.store, this.budgetMs, async (db) => {
      const rows = await db.all<{ hour: string; total: number }>(
        `SELECT ${hour} AS "hour", COUNT(*) AS "total" FROM "${LOGS_TABLE}" AS r WHERE (${where.sql}) GROUP BY ${hour} ORDER BY ${hour}`,
        where.params,
      );
      return rows.map((row) => ({ date: `${row.hour}:00:00.000Z`, total: Number(row.total) }));
    });
  }

  /** `GET /api/logs/{id}`; a 404 when there is none. */
  async view(id: string): Promise<LogRecord> {
    const row = await underDeadline(this.store, this.budgetMs, (db) => db.get<Row>(`SELECT ${COLUMNS} FROM "${LOGS_TABLE}" WHERE "id" = ?`, [id]));
    if (row === undefined) throw notFound();
    return fromRow(row);
  }

  private context(request: RequestInfo) {
    return { collection: this.collection, alias: 'r', lookup: () => undefined, request, mode: 'filter' as const, guard: true, dialect: this.dialect };
  }

  private where(filter: string, request: RequestInfo) {
    return compiling(() => compileFilter(filter, this.context(request)), { param: 'filter', request });
  }
}
