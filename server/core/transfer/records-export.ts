// A collection's records as CSV, JSON or NDJSON, streamed (GET /api/collections/{c}/records/export):
// read in chunks under the list rule and the client's filter, each chunk an operation of its own under the
// query budget and the read budget (the bytes a list's answer may hold), with a turn of the event loop
// between chunks, so an export of any size holds neither the whole set in memory nor the loop. A chunk
// is at most 500 rows and aims at a quarter of the read budget: its row count follows the size of the
// rows read so far, and a chunk that still passes the budget is read again in fewer rows. Without a
// sort, chunks follow the row id (insertion order) from where the last one stopped; with one, the
// sorted row ids are read first (8 bytes a record) and the rows fetched by id in that order. It is not
// a snapshot: a record written during an export may or may not be in it, never twice.
//
// `ids` (at most 500 record ids, each valid for the collection's id field) narrows the export to those
// records, on top of the list rule and the filter: the admin grid's "export selected" is this export,
// so a caller never gets through it a record the list would not show, and the file has one set of
// rules (csv.ts's formula guard, the API's values) whoever asks for it.
//
// Errors before the first byte (a bad filter or sort, a first chunk over a budget) are the usual 400. One
// after it (a single record over the read budget, a chunk past the time budget) cannot change the 200
// already sent: the body ends with a line saying so, which no JSON or NDJSON parser takes for data,
// and the connection is then cut instead of ending the body (clients see an incomplete response).
import { ApiError, badRequest, fieldError } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import type { Store } from '../../store/db.js';
import { ReadTooLargeError, valueBytes } from '../../store/deadline.js';
import { underDeadline } from '../query-budget.js';
import { listQuery } from '../records-read.js';
import { presentRecords } from '../record-response.js';
import { shownFields, viewerOf } from '../record-serializer.js';
import type { ListContext } from '../request-context.js';
import { validateText } from '../fields/text.js';
import type { Collection, Row, TextField } from '../../model/types.js';
import { csvLine } from './csv.js';

export type ExportFormat = 'csv' | 'json' | 'ndjson';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'json', 'ndjson'];
const CHUNK = 500;
/** Ids one export may name (`?ids=`): a selection, not a second way to list a collection. */
export const MAX_EXPORT_IDS = 500;
/** A chunk aims at this share of the read budget. */
const CHUNK_SHARE = 4;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const TOO_LARGE = Symbol('too large');
type Keyed = Row & { _k: number };

/** Reads the next chunk of at most `limit` rows: null at the end, TOO_LARGE when the rows pass the read budget (nothing consumed). */
type ChunkReader = (limit: number) => Promise<Keyed[] | null | typeof TOO_LARGE>;

/** `?ids=a,b,c` → the distinct ids (null without the parameter); any id the collection could not hold is a 400. */
export function exportIds(c: Collection, raw: string | null): string[] | null {
  if (raw === null) return null;
  const ids = [...new Set(raw.split(','))];
  const refuse = (message: string) => badRequest(message, { ids: fieldError('validation_invalid_value', message) });
  if (ids.length > MAX_EXPORT_IDS) throw refuse(`An export names at most ${MAX_EXPORT_IDS} record ids.`);
  const idField = c.fields.find((f): f is TextField => f.name === 'id' && f.type === 'text');
  const bad = ids.find((id) => id === '' || (idField !== undefined && validateText(id, idField) !== null));
  if (bad !== undefined) throw refuse(bad === '' ? 'The ids list has an empty entry.' : `"${bad.slice(0, 40)}" is not a valid record id.`);
  return ids;
}

async function chunkReader(store: Store, c: Collection, ctx: ListContext, ids: readonly string[] | null, budgetMs: number, readBytes: number): Promise<ChunkReader> {
  const table = ident(c.name);
  const read = (sql: string, params: unknown[]) => underDeadline(store, budgetMs, async (db) => {
    try {
      return await db.all<Keyed>(sql, params as never);
    } catch (err) {
      if (err instanceof ReadTooLargeError) return TOO_LARGE;
      throw err;
    }
  }, readBytes);
  const listed = listQuery(c, ctx);
  const { order } = listed;
  // the ids narrow what the list rule and filter allow, bound as parameters like every value
  const where = ids === null ? listed.where : { sql: `(${listed.where.sql}) AND r.id IN (${ids.map(() => '?').join(',')})`, params: [...listed.where.params, ...ids] };
  if (order === null) {
    let after = Number.MIN_SAFE_INTEGER;
    return async (limit) => {
      const rows = await read(`SELECT r._rowid_ AS _k, r.* FROM ${table} AS r WHERE r._rowid_ > ? AND (${where.sql}) ORDER BY r._rowid_ LIMIT ?`, [after, ...where.params, limit]);
      if (rows === TOO_LARGE || rows.length === 0) return rows === TOO_LARGE ? rows : null;
      after = rows[rows.length - 1]._k;
      return rows;
    };
  }
  const keys = await underDeadline(store, budgetMs, async (db) =>
    (await db.all<{ k: number }>(`SELECT r._rowid_ AS k FROM ${table} AS r WHERE ${where.sql} ORDER BY ${order.sql}, r._rowid_`, [...where.params, ...order.params])).map((r) => r.k), readBytes);
  let at = 0;
  return async (limit) => {
    if (at >= keys.length) return null;
    const slice = keys.slice(at, at + limit);
    const rows = await read(`SELECT r._rowid_ AS _k, r.* FROM ${table} AS r WHERE r._rowid_ IN (${slice.map(() => '?').join(',')})`, slice);
    if (rows === TOO_LARGE) return rows;
    at += slice.length;
    const byKey = new Map(rows.map((r) => [r._k, r]));
    return slice.map((k) => byKey.get(k)).filter((r): r is Keyed => r !== undefined);
  };
}

/** The rows to read next, from the size of the rows just read. */
function nextLimit(rows: Row[], target: number): number {
  let bytes = 0;
  for (const row of rows) for (const v of Object.values(row)) bytes += valueBytes(v);
  const perRow = Math.max(1, bytes / Math.max(1, rows.length));
  return Math.max(1, Math.min(CHUNK, Math.floor(target / perRow)));
}

/** Reads chunks with their row counts fitted to the read budget. */
function fittedChunks(read: ChunkReader, readBytes: number) {
  let limit = CHUNK;
  const target = readBytes / CHUNK_SHARE;
  return {
    /** The next chunk, null at the end; `retry` when a chunk must be read again in fewer rows (after a turn). */
    async next(): Promise<Keyed[] | null | 'retry'> {
      const rows = await read(limit);
      if (rows === TOO_LARGE) {
        if (limit === 1) throw new ApiError(400, `A record holds more than the ${readBytes >= 1024 * 1024 ? `${Math.round(readBytes / 1024 / 1024)} MiB` : `${readBytes} bytes`} one read may hold, so it cannot be exported; a filter can leave it out.`);
        limit = Math.max(1, Math.floor(limit / CHUNK_SHARE));
        return 'retry';
      }
      if (rows !== null) limit = nextLimit(rows, target);
      return rows;
    },
  };
}

/** The last line of a body cut short: text no JSON or NDJSON parser reads as data (CSV has none: the cut says it). */
function failureLine(format: ExportFormat, err: unknown): string {
  if (format === 'csv') return '';
  const message = err instanceof ApiError && err.status < 500 ? err.message : 'Something went wrong while exporting.';
  return `\n!export failed: ${message}\n`;
}

/**
 * The export as text pieces. Reading starts here: a bad filter or sort, or a first chunk that cannot be
 * read, rejects before any piece (the client gets a 400).
 */
export async function exportRecords(store: Store, c: Collection, ctx: ListContext, format: ExportFormat, ids: readonly string[] | null, budgetMs: number, readBytes: number): Promise<AsyncGenerator<string>> {
  const plain: ListContext = { ...ctx, expand: new Map(), fields: null };
  const chunks = fittedChunks(await chunkReader(store, c, plain, ids, budgetMs, readBytes), readBytes);
  const next = async (): Promise<Keyed[] | null> => {
    for (let rows = await chunks.next(); ; rows = await chunks.next()) {
      if (rows !== 'retry') return rows;
      await nextTurn();
    }
  };
  const first = await next();
  const columns = shownFields(c, viewerOf(ctx.request)).map((f) => f.name);
  const present = (rows: Row[]) => underDeadline(store, budgetMs, async (db) => (await presentRecords(db, c, rows, plain, false, readBytes)) as Record<string, unknown>[], readBytes);
  return (async function* () {
    if (format === 'csv') yield csvLine(columns);
    if (format === 'json') yield '[';
    let count = 0;
    try {
      for (let rows = first; rows !== null; rows = await next()) {
        const records = await present(rows);
        if (format === 'csv') yield records.map((r) => csvLine(columns.map((k) => r[k]))).join('');
        else if (format === 'ndjson') yield records.map((r) => `${JSON.stringify(r)}\n`).join('');
        else yield records.map((r) => `${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(r)}`).join('');
        await nextTurn();
      }
    } catch (err) {
      const line = failureLine(format, err);
      if (line !== '') {
        yield line;
        // node's response holds a write until the next tick (cork): a cut before then would drop the line
        await nextTurn();
      }
      throw err;
    }
    if (format === 'json') yield '\n]\n';
  })();
}
