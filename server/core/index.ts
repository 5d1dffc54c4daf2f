// The domain, assembled from a store: `openStore(dir)` → `createCore(store)` → `createApp(core)`.
import type { CoreEnv } from './env.js';
import type { Store } from '../store/db.js';
import { ensureSystemSchema } from '../store/schema.js';
import { createAuth } from './sign-in.js';
import { FailureLimiter, StoreFailureLimiter } from './sign-in-limiter.js';
import { Passwords } from './passwords.js';
import { ScryptPool } from './scrypt-pool.js';
import { createCollections, type CollectionListener } from './collections.js';
import { installQueryGuards, MAX_RESPONSE_BYTES, QUERY_BUDGET_MS } from './query-budget.js';
import { addMissingMaintainedIndexes } from './maintained-indexes.js';
import { createRecords } from './records.js';
import { Registry } from './collection-registry.js';
import { internalContext, listContext, requestContext, type RequestInput } from './request-context.js';
import { createSessions } from './session-store.js';
import { createSetup } from './setup.js';
import { ChangeFeed, type ChangeListener } from './writes/changes.js';
import { createTransfer } from './transfer/transfer.js';
import { REALTIME_LIMITS, type RealtimeLimits } from './realtime/subscription-limits.js';
import { createRealtime } from './realtime/fan-out.js';
import { createBatch } from './batch.js';
import { FileStorage } from '../files/storage.js';
import { memoryDataDir } from '../files/memory-dir.js';
import { sweepStorage, type NamedFiles } from '../files/sweep.js';
import { dropReleasedFiles, namesOfRow } from './file-cleanup.js';
import { createFileTokens, fileTokenSecret } from './file-tokens.js';
import { createFiles } from './files.js';
import { createBackups } from './backups.js';
import { saveDefinition } from './collections-ddl.js';
import { dialectOf } from '../rules/compile.js';
import { rebuildAllViews } from './views.js';
import { getRow } from './records-read.js';

/** For the start-up sweep: the names a stored record holds, or null when it is gone. */
function namedFiles(store: Store, registry: Registry): NamedFiles {
  return async (collectionId, recordId) => {
    const c = registry.get(collectionId);
    const row = c ? await getRow(store, c, recordId) : undefined;
    return c && row ? namesOfRow(c, row) : null;
  };
}

export interface CoreOptions {
  /** Called with each new setup token (the CLI prints it; the desktop app shows the setup page). */
  onSetupToken?: (token: string) => void;
  now?: () => number;
  /** How long a request may hold the event loop in queries, in ms (QUERY_BUDGET_MS by default). */
  queryBudgetMs?: number;
  /** Hears failures that cannot reach a client any more: a change listener's, a committed write's after-effect. */
  onError?: (error: unknown) => void;
  /** How long a realtime connection may go without a message before it is closed (PocketBase: 5 minutes). */
  realtimeIdleMs?: number;
  /** What realtime subscriptions may hold (realtime/subscription-limits.ts REALTIME_LIMITS, overridden key by key). */
  realtimeLimits?: Partial<RealtimeLimits>;
  /** Bytes one answer may hold (MAX_RESPONSE_BYTES by default). */
  responseBytes?: number;
  /** The password hashing workers (scrypt-pool.ts); a pool of this server's own by default. */
  hashPool?: ScryptPool;
}

export async function createCore(store: Store, options: CoreOptions = {}) {
  const registry = new Registry();
  installQueryGuards(store);
  // the PostgreSQL store creates its system tables itself when it opens (store-postgres/schema.ts)
  if (store.dialect !== 'postgres') await store.write(async (tx) => ensureSystemSchema(tx));
  await registry.load(store);
  // after a failed journal write the store reloads from disk: the collections may have changed back
  store.onReload(() => registry.load(store));
  const sessions = createSessions(store, registry);
  const report = options.onError ?? ((error: unknown) => console.error(error));
  const storage = new FileStorage(store.dir ?? memoryDataDir(), report);
  // one sign-in block per server: sign-in and an update's oldPassword count against the same accounts;
  // on a team server in the database, so that every node counts against the same block
  const limiter = store.dialect === 'postgres' ? new StoreFailureLimiter(store, options.now) : new FailureLimiter(options.now);
  const credentials = { limiter, passwords: new Passwords(options.hashPool ?? new ScryptPool()) };
  // what every factory below is made of (env.ts)
  const env: CoreEnv = {
    store, registry, sessions, storage, credentials, report,
    dialect: dialectOf(store.dialect),
    budgetMs: options.queryBudgetMs ?? QUERY_BUDGET_MS,
    responseBytes: options.responseBytes ?? MAX_RESPONSE_BYTES,
    now: options.now ?? Date.now,
  };
  const realtime = createRealtime(env, { idleMs: options.realtimeIdleMs, limits: { ...REALTIME_LIMITS, ...options.realtimeLimits } });
  const onCollection: CollectionListener = (action, c) => realtime.onCollection(action, c);
  const collections = createCollections(env, onCollection);
  await store.write(async (tx) => collections.bootstrap(tx));
  // data folders made before Deskbase kept an index get it now (nothing is written when none is missing)
  await store.write(async (tx) => addMissingMaintainedIndexes(env.dialect, tx, registry.all()));
  const sweep = async () => {
    if (store.dir !== null) await sweepStorage(storage, namedFiles(store, registry), (id) => registry.get(id) !== undefined);
  };
  await sweep();
  const feed = new ChangeFeed(report);
  feed.subscribe(dropReleasedFiles(storage));
  const records = createRecords(env, feed);
  const files = createFiles(env, createFileTokens(store, registry, sessions, await fileTokenSecret(store), options.now));
  const auth = createAuth(env);
  feed.subscribe((changes) => realtime.onChanges(changes));
  const batch = createBatch(env, records.writes);
  const setup = createSetup(env, records.writes, options.onSetupToken ?? (() => {}));
  const transfer = createTransfer(env, records, onCollection);
  return {
    store, registry, sessions, collections, records, auth, setup, transfer, realtime, batch, files,
    /** Backups (`GET /api/backup`) and restores; a restore sweeps what its records do not name. */
    backups: createBackups(env, async () => {
      await store.write(async (tx) => {
        // a backup from an older version lacks what the system tables have gained since
        await ensureSystemSchema(tx);
        // an archive's SQLite views are whatever wrote it (one reading _sessions or _superusers, say):
        // each is built again from its viewQuery with every check a view gets; one that fails fails the restore
        for (const c of await rebuildAllViews(tx, registry.all())) await saveDefinition(env.dialect, tx, c);
      });
      await registry.load(store);
      await sweep();
    }),
    /** The one subscription point for record changes: each committed write's, once durable, in commit order. */
    changes: { subscribe: (listener: ChangeListener) => feed.subscribe(listener) },
    /** A request's context, built once per request by the HTTP layer and carried through core. */
    context: (input: RequestInput) => requestContext(input, registry.lookup, env.dialect),
    listContext: (input: RequestInput) => listContext(input, registry.lookup, env.dialect),
    /** The context of work the server does for itself (no caller, no parameters). */
    internalContext: () => internalContext(registry.lookup, env.dialect),
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
