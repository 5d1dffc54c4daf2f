// The write funnel for records: create, update and delete (HTTP, setup and tests all come here), so
// defaults, validation, hashing, rules, cascades and journaling happen once. Each write is prepared
// (prepare-create.ts, prepare-update.ts, prepare-delete.ts), then applied inside one store transaction
// with any others committed together, then its after-effects run (prepared.ts).
import { QueryBudget } from '../../store/db.js';
import type { ReadDb } from '../../store/db.js';
import type { CoreEnv } from '../env.js';
import type { RequestContext } from '../request-context.js';
import type { Collection, Row } from '../../model/types.js';
import type { ChangeFeed } from './changes.js';
import { badRequest } from '../../errors.js';
import { budgetError } from '../query-budget.js';
import { prepareCreate } from './prepare-create.js';
import { prepareDelete } from './prepare-delete.js';
import { prepareTruncate } from './prepare-truncate.js';
import { prepareUpdate } from './prepare-update.js';
import type { PreparedWrite, WriteDeps, WriteOptions } from './prepared.js';
import type { EventScope } from '../events.js';
import { hooked, hookedWrites, inWrite } from './hooked.js';
import { withHookFiles } from './hook-files.js';

export function createRecordWrites(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'sessions' | 'storage' | 'credentials' | 'budgetMs' | 'report' | 'events'>, feed: ChangeFeed) {
  const { store, dialect, registry, sessions, storage, credentials, budgetMs, report, events } = env;
  /** The prepare steps' dependencies, their reads through `db` (the operation's budgeted reader; by default unbudgeted). */
  const depsOf = (db: ReadDb = store): WriteDeps => ({ db, registry, sessions, files: storage, limiter: credentials.limiter, passwords: credentials.passwords, dialect });

  /** Runs after-effects one by one; a failing one is reported, never thrown (the outcome is decided). */
  async function settle(hooks: (() => void | Promise<void>)[]): Promise<void> {
    for (const hook of hooks) {
      try {
        await hook();
      } catch (err) {
        report(err);
      }
    }
  }

  /**
   * Applies prepared writes in one transaction: one journal entry and one sync, all or nothing. Their
   * record changes are published together once durable (changes.ts). The transaction has a budget of
   * its own, covering its rule re-checks and statements (a QueryTimeoutError rolls it back and is the
   * budget's 400); its wait for the write turn costs it nothing. `budget` null: none (first-time setup,
   * whose transaction may wait for another node's setup to end: setup.ts). `stopped`: a stopped hook's
   * (EventScope.stopped): the writes roll back instead of committing once it fired.
   */
  async function commit<T>(writes: readonly PreparedWrite<T>[], budget: QueryBudget | null = new QueryBudget(budgetMs), stopped?: AbortSignal): Promise<T[]> {
    let results: T[];
    try {
      results = await feed.write(store, async (tx, changes) => {
        const out: T[] = [];
        for (const w of writes) out.push(await w.apply(tx, changes));
        return out;
      }, budget ?? undefined, stopped);
    } catch (err) {
      await settle(writes.flatMap((w) => (w.afterRollback ? [() => w.afterRollback?.()] : [])));
      // the budget's 400 for every caller with a budget
      throw budgetError(err, budgetMs);
    }
    await settle(writes.flatMap((w) => (w.afterCommit ? [() => w.afterCommit?.()] : [])));
    return results;
  }

  // A view collection's records are read from its query (views.ts): PocketBase answers every write to one so
  const stored = (c: Collection): Collection => {
    if (c.type === 'view') throw badRequest('Unsupported collection type.');
    return c;
  };

  // writes with event hooks (hooked.ts): only when a hook listens, or inside another write's scope
  const withHooks = hookedWrites({
    store, feed, events, budgetMs, report,
    prepareCreate: (c, body, ctx, opts, tx) => withHookFiles(storage, c, body, (b) => prepareCreate({ ...depsOf(tx), tx }, stored(c), b, ctx, opts)),
    prepareUpdate: (c, id, body, ctx, tx) => withHookFiles(storage, c, body, (b) => prepareUpdate({ ...depsOf(tx), tx }, stored(c), id, b, ctx)),
    prepareDelete: (c, id, ctx, tx) => prepareDelete(depsOf(tx), stored(c), id, ctx),
  });

  return {
    // `db`: the operation's reads (a budgeted reader, query-budget.ts); the store itself by default
    prepareCreate: (c: Collection, body: unknown, ctx: RequestContext, opts?: WriteOptions, db?: ReadDb) => prepareCreate(depsOf(db), stored(c), body, ctx, opts),
    prepareUpdate: (c: Collection, id: string, body: unknown, ctx: RequestContext, db?: ReadDb) => prepareUpdate(depsOf(db), stored(c), id, body, ctx),
    prepareDelete: (c: Collection, id: string, ctx: RequestContext, db?: ReadDb) => prepareDelete(depsOf(db), stored(c), id, ctx),
    commit,

    // `scope`: the event scope a hook's write runs in (core/events.ts): its transaction, its worker
    async create(c: Collection, body: unknown, ctx: RequestContext, opts?: WriteOptions, db?: ReadDb, scope?: EventScope): Promise<Row> {
      if (hooked(events, 'Create', c, scope)) return withHooks.create(c, body, ctx, opts, scope ?? {});
      // a hook's $filesystem files (hook-files.ts) are received first, as uploads
      const [row] = await commit([await withHookFiles(storage, c, body, (b) => prepareCreate(depsOf(db), stored(c), b, ctx, opts))], undefined, scope?.stopped);
      return row;
    },

    async update(c: Collection, id: string, body: unknown, ctx: RequestContext, db?: ReadDb, scope?: EventScope): Promise<Row> {
      if (hooked(events, 'Update', c, scope)) return withHooks.update(c, id, body, ctx, scope ?? {});
      const [row] = await commit([await withHookFiles(storage, c, body, (b) => prepareUpdate(depsOf(db), stored(c), id, b, ctx))], undefined, scope?.stopped);
      return row;
    },

    async remove(c: Collection, id: string, ctx: RequestContext, db?: ReadDb, scope?: EventScope): Promise<void> {
      if (hooked(events, 'Delete', c, scope)) {
        await withHooks.remove(c, id, ctx, scope ?? {});
        return;
      }
      await commit([await prepareDelete(depsOf(db), stored(c), id, ctx)], undefined, scope?.stopped);
    },

    /** Runs `fn` in one write transaction (a hook's $app.runInTransaction); its writes' after-effects run once it is durable. */
    /** `fn` in a transaction of its own; `stopped`: a stopped hook's (EventScope.stopped), rolled back once it fired. */
    inTransaction: <T>(fn: (scope: EventScope) => Promise<T>, stopped?: AbortSignal): Promise<T> => inWrite({ store, feed, budgetMs, report }, stopped ? { stopped } : {}, fn),

    /** Deletes every record of `c` with single deletes' cascades, in one transaction (superusers only: the caller checks). */
    async truncate(c: Collection): Promise<number> {
      if (c.type === 'view') throw badRequest("View collections cannot be truncated since they don't store their own records.");
      // no query budget: bounded by the rows it deletes, not by a clock (a budget's backstop sums the engine
      // time of every statement under it: a large truncate on a loaded machine would meet it; records-import.ts)
      const [deleted] = await commit([prepareTruncate(depsOf(), c)], null);
      return deleted;
    },
  };
}

export type RecordWrites = ReturnType<typeof createRecordWrites>;
