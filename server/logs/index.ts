// The logs of one server (PocketBase's `_logs` in its auxiliary database): requests, hook and cron
// output, anything `write` is given. `openLogs` decides where they are kept, apart from the data:
//   - desktop: a database of their own, `<data folder>/logs/` (its own data.db and journal, its own
//     lock), so the data's journal, snapshots and backups never carry logs and a flood of logs never
//     takes a write turn from a record; capped at LOGS_MAX_BYTES (the oldest make room);
//   - in memory (tests, `dir: null`): an in-memory database of their own;
//   - team server: the table `_logs` in the team's PostgreSQL database, beside the data but no part of
//     it (no collection, never on the bus): every node writes its own requests there and every node's
//     admin UI reads the whole team's, which a file per node could not give; a schema of its own
//     would only change its name (pg_dump -T _logs leaves it out of a dump).
// Kept for `settings.logs.maxDays` (0: none kept, all deleted), `minLevel` and up; retention runs at
// start, when the settings change and every hour, a few thousand rows per transaction.
import { join } from 'node:path';
import type { RequestInfo } from '../model/types.js';
import type { LogsSettings } from '../core/settings.js';
import { installQueryGuards, QUERY_BUDGET_MS } from '../core/query-budget.js';
import { storeFailure } from '../core/store-failures.js';
import { dialectOf } from '../rules/compile.js';
import { openStore, type Store } from '../store/db.js';
import { format } from 'node:util';
import { DEFAULT_LOGS_SETTINGS, LOG_LEVELS, Logger, type LevelName } from './logger.js';
import { LogStore, type LogRecord, type LogsStatsItem } from './log-store.js';
import { requestLog, type RequestFacts } from './request-log.js';
import type { Page } from '../core/request-params.js';

export { LOG_LEVELS, type LevelName } from './logger.js';
export type { LogRecord, LogsStatsItem } from './log-store.js';
export type { RequestFacts } from './request-log.js';

/** The desktop's log database at most (its own store's size cap): past it the oldest logs make room. */
export const LOGS_MAX_BYTES = 256 * 1024 * 1024;
/**
 * The desktop's log database syncs its journal at most this long after a batch is written, not each
 * batch (store/journal.ts `syncEveryMs`): a machine crash (power, kernel) may lose the logs written in
 * the last second, besides those still queued in memory (at most a second's, as ever); a crash of the
 * process loses only the queue. Syncing every batch cost 5-15 µs of CPU per request at 15-23k req/s
 * (bench/ab.ts view, the kernel's synced writes).
 */
export const LOGS_SYNC_MS = 1_000;
/**
 * The journal past which the desktop's log database is checkpointed: as the data's. A checkpoint copies
 * the whole database (up to LOGS_MAX_BYTES), so at 16 MiB a full log database was written 16 times over
 * per byte logged; 64 MiB cost 9.5 µs CPU a log against 11.2 (bench/log-cost.ts, 4 rounds of 40,000, twice,
 * load 6-8). A clean shutdown checkpoints; after a crash the start replays up to this much journal
 * (51 MB of logs, 165,000, in 1.5 s at load 6).
 */
export const LOGS_CHECKPOINT_BYTES = 64 * 1024 * 1024;
/** How often retention runs and a team-server node reads settings other nodes changed. */
const RETENTION_EVERY_MS = 60 * 60 * 1000;
const SETTINGS_EVERY_MS = 10 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Logs per batch on a store of the logs' own: each batch is one transaction, one commit and one synced
 * journal write, made and inserted a few hundred at a time with turns of the loop between (logger.ts,
 * log-store.ts); 1,000 a batch cost 14-15 µs CPU a log against 17-21 for 200 (bench/log-cost.ts).
 */
const OWN_STORE_BATCH = 1_000;

export interface LogsOptions {
  /** The data's store: a team server's keeps the logs in its `_logs` table; the desktop's is not used. */
  store: Store;
  /** The data folder (logs go to its `logs/`), or null for logs in memory. */
  dir: string | null;
  /** The stored settings' `logs` group (read at start and every few seconds). */
  settings: () => Promise<LogsSettings>;
  report: (error: unknown) => void;
  budgetMs?: number;
  now?: () => number;
  /** The desktop's log database at most (LOGS_MAX_BYTES by default; tests lower it). */
  maxBytes?: number;
  /** The logger's queue and batch (logger.ts defaults). */
  capacity?: number;
  batchSize?: number;
  intervalMs?: number;
}

export interface Logs {
  readonly logger: Logger;
  /** Queues a request's log (the HTTP layer, once its response is ready); the log is made later. */
  /** `ip`: the client's address (behind a trusted proxy, the one it names); `remoteIp`: the socket's. */
  request(facts: Omit<RequestFacts, 'authId' | 'userIP' | 'remoteIP'> & { authId: string; ip: string; remoteIp: string }): void;
  list(query: Readonly<Record<string, string>>, request: RequestInfo): Promise<Page<LogRecord>>;
  stats(filter: string, request: RequestInfo): Promise<LogsStatsItem[]>;
  view(id: string): Promise<LogRecord>;
  /** Takes new settings (the settings' update): what is kept from now, and retention under them. */
  apply(settings: LogsSettings): void;
  /** Deletes what the settings no longer keep; resolves with how many. */
  retain(): Promise<number>;
  /** Writes what is queued and closes the log database when it is the logs' own. */
  close(): Promise<void>;
}

/**
 * One log from server-side code (the hooks runtime's `$app.logger()` and `console.*`, cron jobs):
 * `level` by name or slog number, `data` its attributes. Never waits, never throws.
 */
export function writeLog(logs: Logs, level: LevelName | number, message: string, data: Record<string, unknown> = {}): void {
  logs.logger.log(level, message, data);
}

/**
 * What the hooks runtime's `hooksLogger` option takes (`{level, message, data}`, level by name in any
 * case, 'ERROR' say, or by slog number), writing into these logs: `startServer({ hooksLogger: hookLogger(logs) })`.
 */
export function hookLogger(logs: Logs): (entry: { level: string | number; message: string; data?: Record<string, unknown> }) => void {
  return (entry) => writeLog(logs, typeof entry.level === 'number' ? entry.level : levelOf(entry.level), String(entry.message), entry.data ?? {});
}

function levelOf(name: string): number {
  const key = name.toLowerCase() as LevelName;
  return Object.hasOwn(LOG_LEVELS, key) ? LOG_LEVELS[key] : LOG_LEVELS.info;
}

const CONSOLE_LEVELS: Record<string, LevelName> = { log: 'info', info: 'info', debug: 'debug', trace: 'debug', warn: 'warn', error: 'error' };

/**
 * A `console.<method>(...args)` call of a hook as a log: the arguments formatted as Node's console
 * does, `data.type` "console", and `extra` (the hook's file and line, say) beside it.
 */
export function writeConsole(logs: Logs, method: string, args: readonly unknown[], extra: Record<string, unknown> = {}): void {
  logs.logger.log(CONSOLE_LEVELS[method] ?? 'info', format(...args), { type: 'console', ...extra });
}

export async function openLogs(options: LogsOptions): Promise<Logs> {
  const { report } = options;
  const now = options.now ?? Date.now;
  let own: Store | null = null;
  let store: Store;
  if (options.store.dialect === 'postgres') {
    store = options.store;
  } else {
    own = await openStore({
      dir: options.dir === null ? null : join(options.dir, 'logs'),
      maxDatabaseBytes: options.maxBytes ?? LOGS_MAX_BYTES,
      checkpointBytes: LOGS_CHECKPOINT_BYTES,
      // as PocketBase's auxiliary database (synchronous=NORMAL): commits are not synced one by one
      syncEveryMs: LOGS_SYNC_MS,
      log: (line) => report(new Error(`logs: ${line}`)),
      onBackgroundError: report,
    });
    installQueryGuards(own);
    store = own;
  }
  const logStore = new LogStore(store, dialectOf(store.dialect), options.budgetMs ?? QUERY_BUDGET_MS, own !== null);
  try {
    await logStore.ensureTable();
  } catch (err) {
    await own?.close();
    throw err;
  }

  const write = async (records: LogRecord[]) => {
    try {
      await logStore.insert(records);
    } catch (err) {
      // the desktop's log database at its cap: the oldest quarter makes room, then the batch once more
      if (storeFailure(err)?.kind !== 'full') throw err;
      const count = await store.get<{ n: number }>('SELECT COUNT(*) AS "n" FROM "_logs"');
      await logStore.deleteOldest(Math.max(records.length, Math.ceil(Number(count?.n ?? 0) / 4)));
      await logStore.insert(records);
    }
  };
  const logger = new Logger({
    write, report, now, capacity: options.capacity, intervalMs: options.intervalMs,
    batchSize: options.batchSize ?? (own !== null ? OWN_STORE_BATCH : undefined),
  });
  logger.settings = { ...DEFAULT_LOGS_SETTINGS, ...(await options.settings()) };

  let retaining: Promise<number> | null = null;
  const retain = (): Promise<number> => {
    if (retaining !== null) return retaining;
    const { maxDays, minLevel } = logger.settings;
    retaining = logStore.deleteOld(new Date(now() - maxDays * DAY_MS).toISOString().replace('T', ' '), minLevel)
      .finally(() => { retaining = null; });
    return retaining;
  };
  const background = (work: Promise<unknown>) => { work.catch(report); };
  const apply = (settings: LogsSettings) => {
    const before = logger.settings;
    logger.settings = { ...settings };
    if (before.maxDays !== settings.maxDays || before.minLevel !== settings.minLevel) background(retain());
  };
  background(retain());
  const retention = setInterval(() => background(retain()), RETENTION_EVERY_MS);
  retention.unref();
  // other nodes of a team server change the settings too; the desktop hears its own updates at once (apply)
  const refresh = setInterval(() => background(options.settings().then(apply)), SETTINGS_EVERY_MS);
  refresh.unref();

  let closed = false;
  return {
    logger,
    request(facts) {
      const { logIP, logAuthId } = logger.settings;
      const level = facts.error !== undefined ? LOG_LEVELS.error : LOG_LEVELS.info;
      if (!logger.enabled(level)) return;
      // named one by one: a rest and a spread of the facts cost more than the rest of this call (V8)
      const full: RequestFacts = {
        method: facts.method, url: facts.url, status: facts.status, execTime: facts.execTime,
        userAgent: facts.userAgent, referer: facts.referer, auth: facts.auth,
      };
      if (facts.error !== undefined) full.error = facts.error;
      if ('details' in facts) full.details = facts.details;
      if (logAuthId && facts.auth !== '') full.authId = facts.authId;
      if (logIP) {
        full.userIP = facts.ip;
        full.remoteIP = facts.remoteIp;
      }
      // only the facts wait in the queue: the log (redacted url, message) is made in its batch's write
      logger.later(level, () => requestLog(full));
    },
    list: (query, request) => logStore.list(query, request),
    stats: (filter, request) => logStore.stats(filter, request),
    view: (id) => logStore.view(id),
    apply,
    retain,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(retention);
      clearInterval(refresh);
      await logger.close();
      await retaining?.catch(() => 0);
      await own?.close();
    },
  };
}
