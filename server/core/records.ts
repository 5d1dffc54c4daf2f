// Records through the API: reads and writes under the rules, answered in the record response shape
// (record-response.ts). Every operation a client drives runs under a query budget of its own (query-budget.ts).
import { badRequest, notFound } from '../errors.js';
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
import { isSuperuser } from '../model/types.js';
import { refuseIfLocked } from './access.js';
import type { EventPayload, EventScope } from './events.js';
import { authWire, requestInfoOf, bodyWithChanges, wireOf, wireOfBody, withHookChanges, type WireRecord } from './event-records.js';

/** Records through the API, their writes through the funnel (`feed` hears each committed write's changes). */
export function createRecords(env: CoreEnv, feed: ChangeFeed) {
  const { store, registry, budgetMs, responseBytes, events } = env;
  const writes = createRecordWrites(env, feed);
  const budgeted = <T>(operation: (db: ReadDb) => Promise<T>): Promise<T> => underDeadline(store, budgetMs, operation, responseBytes);
  /** A read-only operation: its reads on one committed state (no write commits between a page and its count). */
  const reading = <T>(operation: (db: ReadDb) => Promise<T>): Promise<T> => readUnderDeadline(store, budgetMs, operation, responseBytes);
  const present = (db: ReadDb, c: Collection, rows: Row[], ctx: RequestContext, written = false) => presentRecords(db, c, rows, ctx, written, responseBytes, events);

  /**
   * A request event (onRecordCreateRequest...): its hooks run around `action`, which answers; a hook
   * that ends the chain without e.next() answers what it set as the event's `response` (routes' e.json),
   * else a 400 naming it.
   */
  async function requestEvent(event: string, c: Collection, payload: EventPayload, ctx: RequestContext, action: (p: EventPayload, scope: EventScope) => Promise<{ answer: unknown; payload: EventPayload }>): Promise<unknown> {
    let answer: unknown;
    const r = await events.trigger(event, { collection: c, auth: authWire(ctx), requestInfo: requestInfoOf(ctx), ...payload }, {}, async (p, scope) => {
      const out = await action(p, scope);
      answer = out.answer;
      return out.payload;
    }, c);
    if (r.ran) return answer;
    if (r.payload.response !== undefined) return r.payload.response;
    throw badRequest(`The request was ended by an ${event} hook without e.next() or an answer.`);
  }

  /** onRecordsListRequest: the page read first, its records and result handed to the hooks, then answered. */
  async function hookedList(c: Collection, ctx: ListContext): Promise<Page<unknown>> {
    const page = await reading((db) => listRecords(db, c, ctx, null));
    const records = page.items.map((row) => wireOf(c, row));
    const result = { page: page.page, perPage: page.perPage, totalItems: page.totalItems, totalPages: page.totalPages };
    return requestEvent('onRecordsListRequest', c, { records, result }, ctx, async (p) => {
      const after = (p.records as WireRecord[] | undefined) ?? records;
      const shown = await reading((db) => present(db, c, page.items, ctx));
      const items = shown.map((api, i) => withHookChanges(api as Record<string, unknown>, records[i], after[i]));
      return { answer: { ...result, items }, payload: p };
    }) as Promise<Page<unknown>>;
  }

  /** onRecordViewRequest: the record read first (under the viewRule), handed to the hooks, then answered. */
  async function hookedView(c: Collection, id: string, ctx: RequestContext): Promise<unknown> {
    const row = await reading((db) => viewRecord(db, c, id, ctx));
    const record = wireOf(c, row);
    return requestEvent('onRecordViewRequest', c, { record }, ctx, async (p) => {
      const shown = (await reading((db) => present(db, c, [row], ctx)))[0] as Record<string, unknown>;
      return { answer: withHookChanges(shown, record, p.record as WireRecord | undefined), payload: p };
    });
  }

  /**
   * A null rule's 403 for anyone but a superuser, before anything else of the write runs (its body, its
   * request hooks), as PocketBase answers it; a view's writes are left to the write's 400, which
   * PocketBase answers first, to everyone.
   */
  function refuseLockedWrite(c: Collection, key: 'createRule' | 'updateRule' | 'deleteRule', ctx: RequestContext): void {
    if (c.type !== 'view') refuseIfLocked(c, key, isSuperuser(ctx.request.auth));
  }

  function collection(idOrName: string, message = 'Missing collection context.'): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound(message);
    return c;
  }

  return {
    collection,

    /**
     * The 403 of a create or update its rule locks to superusers (null), asked before the body is read:
     * a body's files are then never received for a write that cannot happen (create and update check
     * again first thing, before their request hooks, and so does the write).
     */
    refuseLocked(name: string, key: 'createRule' | 'updateRule', ctx: RequestContext): void {
      refuseLockedWrite(collection(name, 'Missing or invalid collection context.'), key, ctx);
    },

    /** Only the columns `fields` picks are read (with what expanding and presenting need). */
    list(name: string, ctx: ListContext): Promise<Page<unknown>> {
      const c = collection(name);
      if (events.has('onRecordsListRequest', c)) return hookedList(c, ctx);
      return reading(async (db) => {
        const page = await listRecords(db, c, ctx, listedColumns(ctx));
        return { ...page, items: await present(db, c, page.items, ctx) };
      });
    },

    view(name: string, id: string, ctx: RequestContext): Promise<unknown> {
      const c = collection(name);
      if (events.has('onRecordViewRequest', c)) return hookedView(c, id, ctx);
      return reading(async (db) => (await present(db, c, [await viewRecord(db, c, id, ctx)], ctx))[0]);
    },

    // A write's checks run under one budget (the transaction, which repeats a check that already
    // passed, has its own); the response is built under another.
    async create(name: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      refuseLockedWrite(c, 'createRule', ctx);
      if (events.has('onRecordCreateRequest', c)) {
        const first = wireOfBody(c, body);
        return requestEvent('onRecordCreateRequest', c, { record: first }, ctx, async (p, scope) => {
          const b = bodyWithChanges(body, first, p.record as WireRecord | undefined);
          const row = await budgeted((db) => writes.create(c, b, ctx, undefined, db, scope));
          return { answer: await budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]), payload: { record: wireOf(c, row) } };
        });
      }
      const row = await budgeted((db) => writes.create(c, body, ctx, undefined, db));
      return budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]);
    },

    async update(name: string, id: string, body: unknown, ctx: RequestContext): Promise<unknown> {
      const c = collection(name, 'Missing or invalid collection context.');
      refuseLockedWrite(c, 'updateRule', ctx);
      if (events.has('onRecordUpdateRequest', c)) {
        // the record as stored with the body's values over it (the updateRule is the write's to check)
        const stored = await reading((db) => viewRecord(db, c, id, ctx, 'updateRule')).catch(() => null);
        if (!stored) throw notFound();
        const base = wireOf(c, stored);
        const first: WireRecord = { collection: c, data: { ...base.data, ...wireOfBody(c, body).data, id: base.data.id }, original: base.data };
        return requestEvent('onRecordUpdateRequest', c, { record: first }, ctx, async (p, scope) => {
          const b = bodyWithChanges(body, first, p.record as WireRecord | undefined);
          const row = await budgeted((db) => writes.update(c, id, b, ctx, db, scope));
          return { answer: await budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]), payload: { record: wireOf(c, row) } };
        });
      }
      const row = await budgeted((db) => writes.update(c, id, body, ctx, db));
      return budgeted(async (db) => (await present(db, c, [row], ctx, true))[0]);
    },

    async remove(name: string, id: string, ctx: RequestContext): Promise<void> {
      const c = collection(name);
      refuseLockedWrite(c, 'deleteRule', ctx); // (the hooked path below read the refusal as a 404)
      if (events.has('onRecordDeleteRequest', c)) {
        const stored = await reading((db) => viewRecord(db, c, id, ctx, 'deleteRule')).catch(() => null);
        if (!stored) throw notFound();
        await requestEvent('onRecordDeleteRequest', c, { record: wireOf(c, stored) }, ctx, async (p, scope) => {
          await budgeted((db) => writes.remove(c, id, ctx, db, scope));
          return { answer: null, payload: p };
        });
        return;
      }
      await budgeted((db) => writes.remove(c, id, ctx, db));
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
