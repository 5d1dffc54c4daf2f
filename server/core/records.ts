// Records through the API: reads and writes under the rules, answered in the record response shape
// (record-response.ts). Every stretch of work a client drives runs under the query budget (query-budget.ts).
import { notFound } from '../errors.js';
import type { FileStorage } from '../files/storage.js';
import type { Store } from '../store/db.js';
import { underDeadline } from './query-budget.js';
import type { Page } from './request-params.js';
import { listRecords, viewRecord } from './records-read.js';
import type { ChangeFeed } from './writes/changes.js';
import { createRecordWrites } from './writes/funnel.js';
import { presentRecords } from './record-response.js';
import type { Registry } from './collection-registry.js';
import type { ListContext, RequestContext } from './request-context.js';
import type { Sessions } from './session-store.js';
import type { Collection } from './types.js';

export function createRecords(store: Store, registry: Registry, sessions: Sessions, feed: ChangeFeed, files: FileStorage, budgetMs: number, report: (error: unknown) => void) {
  const writes = createRecordWrites(store, registry, sessions, feed, { budgetMs, report, files });
  const budgeted = <T>(operation: () => T): T => underDeadline(store, budgetMs, operation);

  function collection(idOrName: string, message = 'Missing collection context.'): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound(message);
    return c;
  }

  return {
    collection,

    list(name: string, ctx: ListContext): Page<unknown> {
      const c = collection(name);
      return budgeted(() => {
        const page = listRecords(store, c, ctx);
        return { ...page, items: presentRecords(store, c, page.items, ctx) };
      });
    },

    view(name: string, id: string, ctx: RequestContext): unknown {
      const c = collection(name);
      return budgeted(() => presentRecords(store, c, [viewRecord(store, c, id, ctx)], ctx)[0]);
    },

    // A write's rule checks run before its first await (the one in the write transaction repeats a
    // check that already passed); the response is built in a stretch of its own.
    async create(name: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.create(c, body, ctx));
      return budgeted(() => presentRecords(store, c, [row], ctx, true)[0]);
    },

    async update(name: string, id: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted(() => writes.update(c, id, body, ctx));
      return budgeted(() => presentRecords(store, c, [row], ctx, true)[0]);
    },

    async remove(name: string, id: string, ctx: RequestContext): Promise<void> {
      await budgeted(() => writes.remove(collection(name), id, ctx));
    },

    writes,
  };
}

export type Records = ReturnType<typeof createRecords>;
