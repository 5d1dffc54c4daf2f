// Records through the API: reads and writes under the rules, answered in the record response shape
// (record-response.ts). Every stretch of work a client drives runs under the query budget (query-budget.ts).
import { notFound } from '../errors.js';
import type { FileStorage } from '../files/storage.js';
import type { Store } from '../store/db.js';
import { MAX_RESPONSE_BYTES, underDeadline } from './query-budget.js';
import type { Page } from './request-params.js';
import { listRecords, viewRecord } from './records-read.js';
import type { ChangeFeed } from './writes/changes.js';
import { createRecordWrites } from './writes/funnel.js';
import { topLevelNames } from './pick-fields.js';
import { presentRecords } from './record-response.js';
import type { Registry } from './collection-registry.js';
import type { ListContext, RequestContext } from './request-context.js';
import type { Sessions } from './session-store.js';
import type { Credentials } from './writes/prepared.js';
import type { Collection, Row } from '../model/types.js';

/** `responseBytes`: what one answer may hold, in the rows read and an expand as repeated (query-budget.ts). */
export function createRecords(store: Store, registry: Registry, sessions: Sessions, feed: ChangeFeed, files: FileStorage, credentials: Credentials, budgetMs: number, report: (error: unknown) => void, responseBytes = MAX_RESPONSE_BYTES) {
  const writes = createRecordWrites(store, registry, sessions, feed, { budgetMs, report, files, ...credentials });
  const budgeted = <T>(operation: () => T): T => underDeadline(store, budgetMs, operation, responseBytes);
  const present = (c: Collection, rows: Row[], ctx: RequestContext, written = false) => presentRecords(store, c, rows, ctx, written, responseBytes);

  function collection(idOrName: string, message = 'Missing collection context.'): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound(message);
    return c;
  }

  return {
    collection,

    /** Only the columns `fields` picks are read (with what expanding and presenting need). */
    list(name: string, ctx: ListContext): Page<unknown> {
      const c = collection(name);
      return budgeted(() => {
        const page = listRecords(store, c, ctx, listedColumns(ctx));
        return { ...page, items: present(c, page.items, ctx) };
      });
    },

    view(name: string, id: string, ctx: RequestContext): unknown {
      const c = collection(name);
      return budgeted(() => present(c, [viewRecord(store, c, id, ctx)], ctx)[0]);
    },

    // A write's rule checks run before its first await (the one in the write transaction repeats a
    // check that already passed); the response is built in a stretch of its own.
    async create(name: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.create(c, body, ctx));
      return budgeted(() => present(c, [row], ctx, true)[0]);
    },

    async update(name: string, id: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.update(c, id, body, ctx));
      return budgeted(() => present(c, [row], ctx, true)[0]);
    },

    async remove(name: string, id: string, ctx: RequestContext): Promise<void> {
      await budgeted(() => writes.remove(collection(name), id, ctx));
    },

    writes,
  };
}

/**
 * The top-level fields a list's `fields` picks, with the relations its `expand` follows (null: whole
 * rows): a list of large records asked only for their ids reads no large value.
 */
function listedColumns(ctx: ListContext): Set<string> | null {
  const names = topLevelNames(ctx.fields);
  return names === null ? null : new Set([...names, ...ctx.expand.keys()]);
}

export type Records = ReturnType<typeof createRecords>;
