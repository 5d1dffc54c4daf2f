// Records through the API: reads and writes under the rules, answered in the record response shape
// (record-response.ts). Every operation a client drives runs under a query budget of its own (query-budget.ts).
import { notFound } from '../errors.js';
import type { ReadDb } from '../store/db.js';
import { readUnderDeadline, underDeadline } from './query-budget.js';
import type { CoreEnv } from './env.js';
import type { Page } from './request-params.js';
import { listRecords, viewRecord } from './records-read.js';
import type { ChangeFeed } from './writes/changes.js';
import { createRecordWrites } from './writes/funnel.js';
import { topLevelNames } from './pick-fields.js';
import { presentRecords } from './record-response.js';
import type { ListContext, RequestContext } from './request-context.js';
import type { Collection, Row } from '../model/types.js';

/** Records through the API, their writes through the funnel (`feed` hears each committed write's changes). */
export function createRecords(env: CoreEnv, feed: ChangeFeed) {
  const { store, registry, budgetMs, responseBytes } = env;
  const writes = createRecordWrites(env, feed);
  const budgeted = <T>(operation: (db: ReadDb) => Promise<T>): Promise<T> => underDeadline(store, budgetMs, operation, responseBytes);
  /** A read-only operation: its reads on one committed state (no write commits between a page and its count). */
  const reading = <T>(operation: (db: ReadDb) => Promise<T>): Promise<T> => readUnderDeadline(store, budgetMs, operation, responseBytes);
  const present = (db: ReadDb, c: Collection, rows: Row[], ctx: RequestContext, written = false) => presentRecords(db, c, rows, ctx, written, responseBytes);

  function collection(idOrName: string, message = 'Missing collection context.'): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound(message);
    return c;
  }

  return {
    collection,

    /** Only the columns `fields` picks are read (with what expanding and presenting need). */
    list(name: string, ctx: ListContext): Promise<Page<unknown>> {
      const c = collection(name);
      return reading(async (db) => {
        const page = await listRecords(db, c, ctx, listedColumns(ctx));
        return { ...page, items: await present(db, c, page.items, ctx) };
      });
    },

    view(name: string, id: string, ctx: RequestContext): Promise<unknown> {
      const c = collection(name);
      return reading(async (db) => (await present(db, c, [await viewRecord(db, c, id, ctx)], ctx))[0]);
    },

    // A write's checks run under one budget (the transaction, which repeats a check that already
    // passed, has its own); the response is built under another.
    async create(name: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted((db) => writes.create(c, body, ctx, undefined, db));
      return budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]);
    },

    async update(name: string, id: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      const row = await budgeted((db) => writes.update(c, id, body, ctx, db));
      return budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]);
    },

    async remove(name: string, id: string, ctx: RequestContext): Promise<void> {
      await budgeted((db) => writes.remove(collection(name), id, ctx, db));
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
