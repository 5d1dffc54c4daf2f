// Record writes with event hooks (PocketBase's model events, core/events.ts): the funnel comes here
// only when a hook listens to one of the collection's write events, or when the write runs inside
// another write's scope (a hook's $app.save). The whole write is one transaction: `onRecordCreate`
// (before e.next(): the record as submitted; after: as saved) wraps the prepare step, run inside the
// transaction on its reader, and `onRecordCreateExecute` wraps the statement; a handler's error rolls
// everything back; `onRecordValidate` (create and update) wraps the checks inside the prepare step.
// `onRecordAfterCreateSuccess` runs once the write is durable (the outermost write's,
// for a nested one), `onRecordAfterCreateError` after it failed. Update and delete likewise.
import { badRequest } from '../../errors.js';
import { QueryBudget, type WriteTx } from '../../store/db.js';
import { budgetError } from '../query-budget.js';
import type { CoreEvents, EventScope } from '../events.js';
import { bodyWithChanges, wireOf, wireOfBody, type WireRecord } from '../event-records.js';
import { getRow } from '../records-read.js';
import type { RequestContext } from '../request-context.js';
import type { Collection, Row } from '../../model/types.js';
import type { ChangeFeed, RecordChange } from './changes.js';
import type { PreparedWrite, WriteOptions } from './prepared.js';
import type { Store } from '../../store/db.js';

type Kind = 'Create' | 'Update' | 'Delete';
const eventsOf = (k: Kind) => [`onRecord${k}`, `onRecord${k}Execute`, `onRecordAfter${k}Success`, `onRecordAfter${k}Error`, ...(k === 'Delete' ? [] : ['onRecordValidate'])];
const EVENTS: Record<Kind, string[]> = { Create: eventsOf('Create'), Update: eventsOf('Update'), Delete: eventsOf('Delete') };

/** Whether a write of kind `k` to `c` has hooks to run (or runs inside another write's scope). */
export function hooked(events: CoreEvents, k: Kind, c: Collection, scope?: EventScope): boolean {
  return scope?.tx !== undefined || EVENTS[k].some((e) => events.has(e, c));
}

export interface HookedDeps {
  store: Store;
  feed: ChangeFeed;
  events: CoreEvents;
  budgetMs: number;
  report: (error: unknown) => void;
  prepareCreate(c: Collection, body: unknown, ctx: RequestContext, opts: WriteOptions | undefined, tx: WriteTx): Promise<PreparedWrite<Row>>;
  prepareUpdate(c: Collection, id: string, body: unknown, ctx: RequestContext, tx: WriteTx): Promise<PreparedWrite<Row>>;
  prepareDelete(c: Collection, id: string, ctx: RequestContext, tx: WriteTx): Promise<PreparedWrite<null>>;
}

async function settle(fns: (() => void | Promise<void>)[], report: (error: unknown) => void): Promise<void> {
  for (const fn of fns) {
    try {
      await fn();
    } catch (err) {
      report(err);
    }
  }
}

/**
 * Runs `fn` inside a write: the scope's own transaction when it has one, else a new one (with its budget);
 * what `fn` stages for after the commit (or the rollback) runs then.
 */
export async function inWrite<T>(h: Pick<HookedDeps, 'store' | 'feed' | 'budgetMs' | 'report'>, scope: EventScope, fn: (scope: EventScope) => Promise<T>): Promise<T> {
  if (scope.tx) return fn(scope);
  const afterCommit: (() => void | Promise<void>)[] = [];
  const afterRollback: (() => void | Promise<void>)[] = [];
  let result: T;
  try {
    result = await h.feed.write(h.store, (tx: WriteTx, changes: RecordChange[]) => fn({ ...scope, tx, changes, afterCommit, afterRollback }), new QueryBudget(h.budgetMs), scope.stopped);
  } catch (err) {
    await settle(afterRollback, h.report);
    throw budgetError(err, h.budgetMs);
  }
  await settle(afterCommit, h.report);
  return result;
}

function stage(scope: EventScope, w: PreparedWrite<unknown>): void {
  if (w.afterCommit) scope.afterCommit?.push(() => w.afterCommit?.());
  if (w.afterRollback) scope.afterRollback?.push(() => w.afterRollback?.());
}

const changed = (a: WireRecord, b: WireRecord | undefined) => b !== undefined && (JSON.stringify(a.data) !== JSON.stringify(b.data) || b.password !== undefined);

/** One hooked write: the model event around `prepare`, the execute event around `apply`, the after events. */
async function run<T>(
  h: HookedDeps, k: Kind, c: Collection, scope: EventScope, initial: (tx: WriteTx) => Promise<WireRecord>,
  prepare: (record: WireRecord, before: WireRecord, tx: WriteTx) => Promise<PreparedWrite<T>>, answer: (result: T, record: WireRecord) => WireRecord,
): Promise<T> {
  const { events } = h;
  let result: { value: T } | null = null;
  let last: WireRecord | undefined;
  // after-success hooks run outside the transaction, once the outermost write is durable
  const outer = scope.tx === undefined;
  // an outermost write made by a waiting handler (a hook's $app.save, a request hook's e.next()): its
  // after hooks run on that worker, which waits for them; a nested write's run once the outermost one is
  // durable, when the worker that made it may have moved on: on any worker
  const successScope: EventScope = outer && scope.worker !== undefined ? { worker: scope.worker } : {};
  try {
    await inWrite(h, scope, async (s) => {
      const tx = s.tx!;
      const before = await initial(tx);
      const model = await events.trigger(`onRecord${k}`, { record: before }, s, async (p, s2) => {
        let record = (p.record as WireRecord | undefined) ?? before;
        let prepared: PreparedWrite<T> | null = null;
        if (k !== 'Delete' && events.has('onRecordValidate', c)) {
          // onRecordValidate wraps the checks (its e.next() validates; a throw is the write's error)
          const v = await events.trigger('onRecordValidate', { record }, s2, async (pv) => {
            record = (pv.record as WireRecord | undefined) ?? record;
            prepared = await prepare(record, before, tx);
            return pv;
          }, c);
          if (!v.ran) throw badRequest('The record was not saved: an onRecordValidate hook did not call e.next().');
        } else prepared = await prepare(record, before, tx);
        stage(s2, prepared!);
        const exec = await events.trigger(`onRecord${k}Execute`, { record }, s2, async (p2, s3) => {
          const now = p2.record as WireRecord | undefined;
          let w = prepared!;
          if (now && changed(record, now)) {
            w = await prepare(now, before, tx); // changed at execute time: prepared again with the change
            stage(s3, w);
          }
          const value = await w.apply(tx, s3.changes ?? []);
          result = { value };
          last = answer(value, now ?? record);
          return { record: last };
        }, c);
        return exec.payload;
      }, c);
      if (!model.ran || result === null) throw badRequest(`The record was not ${k === 'Delete' ? 'deleted' : 'saved'}: an onRecord${k} hook did not call e.next().`);
      if (!outer) {
        const record = last!;
        s.afterCommit?.push(async () => {
          if (events.has(`onRecordAfter${k}Success`, c)) await events.trigger(`onRecordAfter${k}Success`, { record }, successScope, async (p) => p, c);
        });
      }
    });
  } catch (err) {
    if (outer && events.has(`onRecordAfter${k}Error`, c)) {
      const error = errorPayload(err);
      await events.trigger(`onRecordAfter${k}Error`, { record: last ?? { collection: c, data: {} }, error }, successScope, async (p) => p, c).catch(h.report);
    }
    throw err;
  }
  if (outer && events.has(`onRecordAfter${k}Success`, c)) {
    await events.trigger(`onRecordAfter${k}Success`, { record: last! }, successScope, async (p) => p, c).catch(h.report);
  }
  return (result as { value: T } | null)!.value;
}

function errorPayload(err: unknown) {
  const e = err as { status?: number; message?: string; data?: unknown };
  return { status: e.status ?? 400, message: e.message ?? String(err), data: e.data ?? {} };
}

export function hookedWrites(h: HookedDeps) {
  return {
    create(c: Collection, body: unknown, ctx: RequestContext, opts: WriteOptions | undefined, scope: EventScope): Promise<Row> {
      const first = wireOfBody(c, body);
      return run(h, 'Create', c, scope, async () => first,
        (record, before, tx) => h.prepareCreate(c, bodyWithChanges(body, before, record), ctx, opts, tx),
        (row) => wireOf(c, row));
    },
    update(c: Collection, id: string, body: unknown, ctx: RequestContext, scope: EventScope): Promise<Row> {
      let stored: WireRecord | null = null;
      return run(h, 'Update', c, scope,
        async (tx) => {
          const row = await getRow(tx, c, id);
          stored = row ? wireOf(c, row) : { collection: c, data: { id } };
          const submitted = wireOfBody(c, body);
          return { collection: c, data: { ...stored.data, ...submitted.data, id: stored.data.id ?? id }, original: stored.data };
        },
        (record, before, tx) => h.prepareUpdate(c, id, bodyWithChanges(body, before, record), ctx, tx),
        (row) => wireOf(c, row));
    },
    remove(c: Collection, id: string, ctx: RequestContext, scope: EventScope): Promise<null> {
      return run(h, 'Delete', c, scope,
        async (tx) => {
          const row = await getRow(tx, c, id);
          return row ? wireOf(c, row) : { collection: c, data: { id } };
        },
        (_record, _before, tx) => h.prepareDelete(c, id, ctx, tx),
        (_r, record) => record);
    },
  };
}
