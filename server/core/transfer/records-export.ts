// A collection's records as CSV, JSON or NDJSON, streamed (GET /api/collections/{c}/records/export):
// read in chunks of CHUNK rows under the list rule and the client's filter, each chunk a stretch of
// its own under the query budget, with a turn of the event loop between chunks, so an export of any
// size holds neither the whole set in memory nor the loop. Without a sort, chunks follow the row id
// (insertion order) from where the last one stopped; with one, the sorted row ids are read first
// (8 bytes a record) and the rows fetched by id in that order. It is not a snapshot: a record
// written during an export may or may not be in it, never twice.
import { ident } from '../../filter/sql.js';
import type { Store } from '../../store/db.js';
import { underDeadline } from '../query-budget.js';
import { listQuery } from '../records-read.js';
import { presentRecords } from '../record-response.js';
import { shownFields, viewerOf } from '../record-serializer.js';
import type { ListContext } from '../request-context.js';
import type { Collection, Row } from '../types.js';
import { csvLine } from './csv.js';

export type ExportFormat = 'csv' | 'json' | 'ndjson';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'json', 'ndjson'];
const CHUNK = 500;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Row chunks in export order; the first is read before the caller's first await (its errors are a 400). */
function rowChunks(store: Store, c: Collection, ctx: ListContext, budgetMs: number): () => Row[] | null {
  const table = ident(c.name);
  const { where, order } = underDeadline(store, budgetMs, () => listQuery(c, ctx));
  if (order === null) {
    let after = -Infinity;
    return () => underDeadline(store, budgetMs, () => {
      const rows = store.all<Row & { _k: number }>(
        `SELECT r._rowid_ AS _k, r.* FROM ${table} AS r WHERE r._rowid_ > ? AND (${where.sql}) ORDER BY r._rowid_ LIMIT ?`,
        [after === -Infinity ? -9007199254740991 : after, ...where.params, CHUNK],
      );
      if (rows.length === 0) return null;
      after = rows[rows.length - 1]._k;
      return rows;
    });
  }
  const keys = underDeadline(store, budgetMs, () =>
    store.all<{ k: number }>(`SELECT r._rowid_ AS k FROM ${table} AS r WHERE ${where.sql} ORDER BY ${order.sql}, r._rowid_`, [...where.params, ...order.params]).map((r) => r.k));
  let at = 0;
  return () => {
    if (at >= keys.length) return null;
    const slice = keys.slice(at, (at += CHUNK));
    return underDeadline(store, budgetMs, () => {
      const rows = store.all<Row & { _k: number }>(`SELECT r._rowid_ AS _k, r.* FROM ${table} AS r WHERE r._rowid_ IN (${slice.map(() => '?').join(',')})`, slice);
      const byKey = new Map(rows.map((r) => [r._k, r]));
      return slice.map((k) => byKey.get(k)).filter((r): r is Row & { _k: number } => r !== undefined);
    });
  };
}

/** The export as text pieces; reading starts (and a bad filter or sort throws) at this call. */
export function exportRecords(store: Store, c: Collection, ctx: ListContext, format: ExportFormat, budgetMs: number): AsyncGenerator<string> {
  const plain: ListContext = { ...ctx, expand: new Map(), fields: null };
  const next = rowChunks(store, c, plain, budgetMs);
  const first = next();
  const columns = shownFields(c, viewerOf(ctx.request)).map((f) => f.name);
  const present = (rows: Row[]) => underDeadline(store, budgetMs, () => presentRecords(store, c, rows, plain) as Record<string, unknown>[]);
  return (async function* () {
    if (format === 'csv') yield csvLine(columns);
    if (format === 'json') yield '[';
    let count = 0;
    for (let rows = first; rows !== null; rows = next()) {
      const records = present(rows);
      if (format === 'csv') yield records.map((r) => csvLine(columns.map((k) => r[k]))).join('');
      else if (format === 'ndjson') yield records.map((r) => `${JSON.stringify(r)}\n`).join('');
      else yield records.map((r) => `${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(r)}`).join('');
      await nextTurn();
    }
    if (format === 'json') yield '\n]\n';
  })();
}
