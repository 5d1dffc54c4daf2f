// Records as the API shows them: rows read or written under the rules, serialised for the caller,
// expanded in batches.
import { notFound } from '../errors.js';
import type { Store } from '../store/db.js';
import { ruleSql } from './access.js';
import { MAX_RESPONSE_BYTES, underDeadline } from './deadline.js';
import { expandRecords, ExpandTooLarge, parseExpand } from './expand.js';
import { listRecords, viewRecord, type ListQuery, type Page } from './records-read.js';
import { createRecordWrites } from './records-write.js';
import type { Registry } from './registry.js';
import { recordSerializer, viewerOf, type ApiRecord, type Viewer } from './serialize.js';
import type { Sessions } from './sessions.js';
import { ident } from '../filter/sql.js';
import type { Collection, RequestInfo, Row } from './types.js';

/** Every stretch of work a client drives runs under the query budget (deadline.ts). */
export function createRecords(store: Store, registry: Registry, sessions: Sessions, budgetMs: number, responseBytes = MAX_RESPONSE_BYTES) {
  const lookup = registry.lookup;
  const writes = createRecordWrites(store, registry, sessions);
  const budgeted = <T>(operation: () => T): T => underDeadline(store, budgetMs, operation, responseBytes);

  function collection(idOrName: string, message = 'Missing collection context.'): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound(message);
    return c;
  }

  /** Ids among `rows` whose manageRule the caller satisfies: managers see emails. */
  function managedIds(c: Collection, rows: Row[], req: RequestInfo): Set<string> | undefined {
    if (c.type !== 'auth' || !c.manageRule || !req.auth || rows.length === 0) return undefined;
    const w = ruleSql(c.manageRule, c, req, lookup);
    const ids = rows.map((r) => String(r.id));
    const found = store.all<{ id: string }>(
      `SELECT r."id" AS id FROM ${ident(c.name)} AS r WHERE r."id" IN (${ids.map(() => '?').join(',')}) AND (${w.sql})`,
      [...ids, ...w.params],
    );
    return new Set(found.map((r) => r.id));
  }

  /**
   * Rows as the caller sees them, expanded. `written`: the answer to a write (or a sign-in) that is
   * already committed, where an expand past MAX_EXPANDED_RECORDS leaves the record unexpanded rather
   * than turn a done write into a 400 (a client would retry it).
   */
  function present(c: Collection, rows: Row[], req: RequestInfo, expand?: string, written = false): ApiRecord[] {
    const viewer: Viewer = { ...viewerOf(req), managed: managedIds(c, rows, req) };
    const records = rows.map(recordSerializer(c, viewer));
    if (!expand) return records;
    try {
      return expandRecords(store, c, records, parseExpand(expand), req, lookup, responseBytes);
    } catch (err) {
      if (written && err instanceof ExpandTooLarge) return records;
      throw err;
    }
  }

  return {
    collection,
    present,

    /** `fields`: the top-level fields the caller picked (null: all); only those columns are read. */
    list(name: string, q: ListQuery, req: RequestInfo, expand?: string, fields: ReadonlySet<string> | null = null): Page<ApiRecord> {
      const c = collection(name);
      return budgeted(() => {
        const columns = fields === null ? null : new Set([...fields, ...(expand ? parseExpand(expand).keys() : [])]);
        const page = listRecords(store, c, q, req, lookup, columns);
        return { ...page, items: present(c, page.items, req, expand) };
      });
    },

    view(name: string, id: string, req: RequestInfo, expand?: string): ApiRecord {
      const c = collection(name);
      return budgeted(() => present(c, [viewRecord(store, c, id, req, lookup)], req, expand)[0]);
    },

    // A write's rule checks run before its first await (the one in the write transaction repeats a
    // check that already passed); the response is built in a stretch of its own.
    async create(name: string, body: unknown, req: RequestInfo, expand?: string): Promise<ApiRecord> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.create(c, body, req));
      return budgeted(() => present(c, [row], req, expand, true)[0]);
    },

    async update(name: string, id: string, body: unknown, req: RequestInfo, expand?: string): Promise<ApiRecord> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.update(c, id, body, req));
      return budgeted(() => present(c, [row], req, expand, true)[0]);
    },

    async remove(name: string, id: string, req: RequestInfo): Promise<void> {
      await budgeted(() => writes.remove(collection(name), id, req));
    },

    writes,
  };
}

export type Records = ReturnType<typeof createRecords>;
