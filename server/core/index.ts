// The domain, assembled from a store: `openStore(dir)` → `createCore(store)` → `createApp(core)`.
import type { CoreEnv } from './env.js';
import type { Store } from '../store/db.js';
import { ensureSystemSchema } from '../store/schema.js';
import { createAuth } from './sign-in.js';
import { createOAuth2 } from './oauth2.js';
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
import { appendChanges, followBus } from './realtime/between-nodes.js';
import { createBatch } from './batch.js';
import { DiskFileStorage, type FileStorage, type NamedFiles } from '../files/storage.js';
import { DatabaseFileStorage, TEAM_TEMP_BASE } from '../files/db-storage.js';
import { memoryDataDir } from '../files/memory-dir.js';
import { dropReleasedFiles, namesOfRow } from './file-cleanup.js';
import { createFileTokens, fileTokenSecret } from './file-tokens.js';
import { createFiles } from './files.js';
import { createBackups } from './backups.js';
import { saveDefinition } from './collections-ddl.js';
import { dialectOf } from '../rules/compile.js';
import { rebuildAllViews } from './views.js';
import { getRow } from './records-read.js';
import { createSettings } from './settings.js';
import { createRateLimiter } from './rate-limits.js';
import { createMailer, type SMTP_TIMEOUTS } from './mail/mailer.js';
import { createAccountMail } from './account-mail.js';
import { ensureExternalAuths } from './external-auths.js';
import { NO_EVENTS, type CoreEvents } from './events.js';

/**
 * For the start-up sweep: the names a stored record holds, or null when it is gone; undefined for a
 * collection stored but not in this node's registry yet (another node made it since: kept for now).
 */
function namedFiles(store: Store, registry: Registry): NamedFiles {
  return async (collectionId, recordId) => {
    const c = registry.get(collectionId);
    if (!c) return (await store.get('SELECT 1 AS "one" FROM "_collections" WHERE "id" = ?', [collectionId])) ? undefined : null;
    const row = await getRow(store, c, recordId);
    return row ? namesOfRow(c, row) : null;
  };
}

/**
 * Where files live, by the store's engine: the team server's database (every node serves every file;
 * its folder, or the host's TEAM_TEMP_BASE, only holds the node's uploads in progress), or the
 * desktop's data folder (a temporary one for an in-memory store).
 */
function fileStorageOf(store: Store, report: (error: unknown) => void): FileStorage {
  if (store.dialect === 'postgres') return new DatabaseFileStorage(store, store.dir ?? TEAM_TEMP_BASE, report);
  return new DiskFileStorage(store.dir ?? memoryDataDir(), report);
}

export interface CoreOptions {
  /** Called with each new setup token (the CLI prints it; the desktop app shows the setup page). */
  onSetupToken?: (token: string) => void;
  now?: () => number;
  /** Each operation's query budget, in ms of database work: counted work on both engines (rows read on PostgreSQL), with a far wall-clock backstop (QUERY_BUDGET_MS by default). */
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
  /** scrypt's work factor for new password hashes (passwords.ts SCRYPT_N by default; scryptNProblem says what else may be given: test suites lower it). */
  scryptN?: number;
  /** SMTP timeouts in ms (mail/mailer.ts SMTP_TIMEOUTS by default; tests shorten them). */
  smtpTimeouts?: typeof SMTP_TIMEOUTS;
  /** Server-side hooks (server/hooks/ hands its runtime in); none by default. */
  events?: CoreEvents;
}

export async function createCore(store: Store, options: CoreOptions = {}) {
  const registry = new Registry();
  installQueryGuards(store);
  // a team server: the bus position before the registry is read, so no schema change falls between them
  const busFrom = store.bus ? await store.bus.position() : 0;
  // the PostgreSQL store creates its system tables itself when it opens (store-postgres/schema.ts)
  if (store.dialect !== 'postgres') await store.write(async (tx) => ensureSystemSchema(tx));
  await registry.load(store);
  // after a failed journal write the store reloads from disk: the collections may have changed back
  store.onReload(() => registry.load(store));
  const sessions = createSessions(store, registry);
  const report = options.onError ?? ((error: unknown) => console.error(error));
  const storage = fileStorageOf(store, report);
  // one sign-in block per server: sign-in and an update's oldPassword count against the same accounts;
  // on a team server in the database, so that every node counts against the same block
  const limiter = store.dialect === 'postgres' ? new StoreFailureLimiter(store, options.now) : new FailureLimiter(options.now);
  const credentials = { limiter, passwords: new Passwords(options.hashPool ?? new ScryptPool(), options.scryptN) };
  // what every factory below is made of (env.ts)
  const env: CoreEnv = {
    store, registry, sessions, storage, credentials, report,
    dialect: dialectOf(store.dialect),
    budgetMs: options.queryBudgetMs ?? QUERY_BUDGET_MS,
    responseBytes: options.responseBytes ?? MAX_RESPONSE_BYTES,
    now: options.now ?? Date.now,
    events: options.events ?? NO_EVENTS,
  };
  const realtime = createRealtime(env, { idleMs: options.realtimeIdleMs, limits: { ...REALTIME_LIMITS, ...options.realtimeLimits } });
  // a team server's schema changes reach realtime from the bus, on every node alike (realtime/between-nodes.ts)
  const onCollection: CollectionListener = store.bus ? () => {} : (action, c) => realtime.onCollection(action, c);
  const collections = createCollections(env, onCollection);
  await store.write(async (tx) => collections.bootstrap(tx));
  // data folders made before Deskbase kept an index get it now (nothing is written when none is missing)
  await store.write(async (tx) => addMissingMaintainedIndexes(env.dialect, tx, registry.all()));
  const sweep = async () => {
    // an in-memory desktop store has no files from before; a database always may
    if (store.dir !== null || storage.kind === 'database') await storage.sweep(namedFiles(store, registry), (id) => registry.get(id) !== undefined);
  };
  await sweep();
  // a team server's writes append their changes to the bus inside their transaction (realtime/between-nodes.ts)
  const feed = new ChangeFeed(report, store.bus ? appendChanges(store.bus) : null);
  feed.subscribe(dropReleasedFiles(storage));
  const records = createRecords(env, feed);
  const files = createFiles(env, createFileTokens(store, registry, sessions, await fileTokenSecret(store), options.now));
  // the new-device alert is account-mail's (made below, with the mailer)
  const auth = createAuth(env, (c, record, client, userAgent) => accountMail.authAlert(c, record, client, userAgent));
  const oauth2 = createOAuth2(env, auth, records.writes);
  if (store.bus) followBus(env, store.bus, realtime, busFrom);
  else feed.subscribe((changes) => realtime.onChanges(changes));
  const batch = createBatch(env, records.writes);
  const setup = createSetup(env, records.writes, options.onSetupToken ?? (() => {}));
  const transfer = createTransfer(env, records, onCollection);
  const settings = createSettings(env);
  await settings.refresh(); // what every request reads (rate limits, trusted proxy) is in memory from the start
  const mailer = createMailer(env, options.smtpTimeouts);
  const accountMail = createAccountMail(env, { settings, mailer, writes: records.writes, signIn: auth });
  return {
    store, registry, sessions, collections, records, events: env.events,
    /** The server's password hashing (a hook's record.validatePassword). */
    passwords: credentials.passwords, auth, oauth2, setup, transfer, realtime, batch, files, settings, mailer, accountMail,
    /** PocketBase's rate-limit rules over the settings (http/rate-limit.ts asks it for every request). */
    rateLimits: createRateLimiter(env.now),
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
      // a backup from before OAuth2 has no `_externalAuths`
      await store.write(async (tx) => ensureExternalAuths(env.dialect, tx, registry));
      await sweep();
    }),
    /** The one subscription point for record changes: each committed write's, once durable, in commit order. */
    changes: { subscribe: (listener: ChangeListener) => feed.subscribe(listener) },
    /** The SQL dialect of the store (filter/dialect.ts), for SQL written above core (hooks' `$app.db()`). */
    dialect: env.dialect,
    /** A request's context, built once per request by the HTTP layer and carried through core. */
    context: (input: RequestInput) => requestContext(input, registry.lookup, env.dialect),
    listContext: (input: RequestInput) => listContext(input, registry.lookup, env.dialect),
    /** The context of work the server does for itself (no caller, no parameters). */
    internalContext: () => internalContext(registry.lookup, env.dialect),
    /**
     * Runs `fn` (a request's whole handling) as work for `client`, its client key (http/client-key.ts):
     * the store shares what it holds between clients fairly (Store.asClient: the team server's
     * connections); on a store without it (the desktop's), `fn` as it is. Work outside any request
     * (hooks' host operations, cron, start-up) is the server's own.
     */
    asClient: store.asClient?.bind(store) ?? runAsItIs,
    /** The client the work running now is for (asClient's; '' outside any, and on the desktop). */
    clientNow: store.clientNow?.bind(store) ?? serverOwn,
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;

/** The server's own work: every client on a store with nothing shared (Store.clientNow absent). */
function serverOwn(): string {
  return '';
}

/** `fn`, for a store with nothing shared between clients (Store.asClient absent). */
function runAsItIs<T>(_client: string, fn: () => T): T {
  return fn();
}
