// startServer(options) → { url, close, ... }: the one entry point both hosts (the CLI and the Electron
// main process) call. Opens the store on the data folder, builds the core and the HTTP app, listens.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type Core, type CoreOptions } from './core/index.js';
import type { ScryptPool } from './core/scrypt-pool.js';
import { scryptNProblem } from './core/passwords.js';
import { createNodeHandler } from './http/app.js';
import { createBodyServices, type BodyServices } from './http/body-services.js';
import type { RealtimeLimits } from './core/realtime/subscription-limits.js';
import type { ConnectionLimits } from './http/connections.js';
import { hostCheck } from './http/hosts.js';
import { ensureCertificate } from './http/certificate.js';
import { Binding, lanAddresses, type TlsSource } from './http/listener.js';
import { openStore, type Store, type StoreOptions } from './store/db.js';
import { hookLogger, openLogs, type Logs, type LogsOptions } from './logs/index.js';
import { createHooks, createRoutesAndCron, startHooks, type HookLogger, type HooksRuntime } from './hooks/index.js';
import { applyMigrations } from './hooks/migrations-host.js';

/** The one free-port probe, for the desktop shell's port choice (main/ports.ts). */
export { probePort } from './http/listener.js';

export interface ServerOptions {
  /** Data folder; null keeps everything in memory. */
  dir: string | null;
  /** Interface to bind: 127.0.0.1 (default) or 0.0.0.0 for the LAN. */
  host?: string;
  /** 8090 by default; 0 takes any free port. */
  port?: number;
  /** Fail when the port is taken instead of moving to another one (the CLI's explicit --http). */
  strictPort?: boolean;
  /** Built admin UI folder; by default dist/renderer of this package when it exists. */
  uiDir?: string | null;
  /** Human-readable log lines (defaults to console.log). */
  log?: (line: string) => void;
  /** Log every request as a structured line. */
  verbose?: boolean;
  /** Called with each new setup token while no superuser exists. */
  onSetupToken?: (token: string, setupUrl: string) => void;
  /** A realtime connection without a message for this long is closed (default 5 minutes, as PocketBase). */
  realtimeIdleMs?: number;
  /** Extra store options (journal threshold...). */
  store?: Omit<StoreOptions, 'dir'>;
  /**
   * Opens the store instead of the desktop engine on `dir` (`store` is then refused): the PostgreSQL
   * store of a team server, or the tests' store on the engine they run on. The server closes it.
   */
  openStore?: () => Promise<Store>;
  /** Lower or raise the server's resource limits (tests lower them to prove a bound cheaply). */
  limits?: ServerLimits;
  /**
   * Serve HTTPS instead of HTTP: `true` uses a certificate Deskbase makes and keeps in the data folder's
   * tls/ (its CA is what devices trust, see http/certificate.ts); or PEM texts given by the user.
   */
  https?: true | { cert: string; key: string };
  /** The password hashing workers (core/scrypt-pool.ts); a pool of this server's own by default. */
  hashPool?: ScryptPool;
  /** scrypt's work factor for new password hashes (CoreOptions.scryptN). */
  scryptN?: number;
  /** SMTP timeouts in ms (core/mail/mailer.ts SMTP_TIMEOUTS by default). */
  smtpTimeouts?: CoreOptions['smtpTimeouts'];
  /** The logger's queue, batch and interval (server/logs/logger.ts defaults); tests lower them. */
  logs?: Pick<LogsOptions, 'capacity' | 'batchSize' | 'intervalMs'>;
  /**
   * The pb_hooks folder (server-side hooks, server/hooks/): by default `pb_hooks` beside the data
   * folder, as PocketBase; null runs no hooks. A missing folder runs none.
   */
  hooksDir?: string | null;
  /**
   * The pb_migrations folder (JS migrations, server/hooks/migrations.ts), applied at start before the
   * server listens: by default `pb_migrations` beside the data folder, as PocketBase; null applies none.
   */
  migrationsDir?: string | null;
  /** How long one hook may run before its worker is stopped, in ms (10 s by default). */
  hooksTimeoutMs?: number;
  /** Reload the hooks when a file of the folder changes (PocketBase's --hooksWatch). */
  hooksWatch?: boolean;
  /** Hook workers kept loaded (server/hooks/runtime.ts HOOK_WORKERS by default). */
  hooksPool?: number;
  /** Where hook output goes (console.*, $app.logger(), hook errors); stderr by default. */
  hooksLogger?: HookLogger;
  /** The cron's tick in ms (one minute by default, as PocketBase; tests shorten it). */
  cronIntervalMs?: number;
}

export interface ServerLimits extends ConnectionLimits {
  /** Bytes one answer may hold (rows read, an expand as repeated); past it a 400. Default 48 MiB. */
  responseBytes?: number;
  /** Request body bytes held in memory at once, all requests together; past it a 503. Default 96 MiB. */
  bodyBytesInFlight?: number;
  /** What realtime subscriptions may hold per client, per address and in total (REALTIME_LIMITS by default). */
  realtime?: Partial<RealtimeLimits>;
  /** Realtime bytes waiting to be sent, all event streams together; past it, clients behind are dropped. Default 32 MiB. */
  realtimeQueueBytes?: number;
}

export interface RunningServer {
  url: string;
  /** With a certificate Deskbase made: its CA's file and fingerprint, for devices to trust. */
  tls: { caPath: string; caFingerprint: string } | null;
  host: string;
  port: number;
  core: Core;
  /** The server's logs (server/logs/): the hooks runtime writes `console.*` and `$app.logger()` there (`writeLog`). */
  logs: Logs;
  /** The live setup token, while setup is required. */
  setupToken(): Promise<string | null>;
  setupUrl(): Promise<string | null>;
  /** Network URLs (empty unless bound to all interfaces). */
  lanUrls(): Promise<string[]>;
  /** Rebinds to another interface on the same port (LAN sharing on/off), keeping the data open. */
  rebind(host: string): Promise<void>;
  /** Request body bytes held in memory now, all requests together (http/bodies-in-flight.ts). */
  bodyBytesInFlight(): number;
  /** The server-side hooks runtime, when a pb_hooks folder is served. */
  hooks: HooksRuntime | null;
  close(): Promise<void>;
}

/** The pb_hooks folder a server runs: the option, else `pb_hooks` beside the data folder (none in memory). */
export function hooksDirOf(options: Pick<ServerOptions, 'dir' | 'hooksDir'>): string | null {
  if (options.hooksDir !== undefined) return options.hooksDir === null ? null : resolve(options.hooksDir);
  return options.dir === null ? null : join(dirname(resolve(options.dir)), 'pb_hooks');
}

/** The pb_migrations folder a server applies: the option, else `pb_migrations` beside the data folder (none in memory). */
export function migrationsDirOf(options: Pick<ServerOptions, 'dir' | 'migrationsDir'>): string | null {
  if (options.migrationsDir !== undefined) return options.migrationsDir === null ? null : resolve(options.migrationsDir);
  return options.dir === null ? null : join(dirname(resolve(options.dir)), 'pb_migrations');
}

export function defaultUiDir(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [resolve(here, '../dist/renderer'), resolve(here, '../renderer'), resolve(here, 'renderer')]) {
    if (existsSync(join(candidate, 'index.html')) && existsSync(join(candidate, 'assets'))) return candidate;
  }
  return null;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  // refused before the data folder is opened (createCore checks it again, for its own callers)
  const scryptN = options.scryptN === undefined ? null : scryptNProblem(options.scryptN);
  if (scryptN) throw new Error(scryptN);
  // the desktop engine's options with a store opened elsewhere would be ignored: refused, naming them
  if (options.openStore && options.store !== undefined) {
    throw new Error(`store options (${Object.keys(options.store).join(', ') || 'none given'}) apply to the desktop engine Deskbase opens on dir; with openStore, give them to the store it opens`);
  }
  const store = options.openStore ? await options.openStore() : await openStore({ log, ...options.store, dir: options.dir });
  let binding: Binding | null = null;
  const setupUrl = (token: string) => `${binding?.url ?? ''}/_/#/setup?token=${token}`;
  // tokens are issued only once the server listens (below), so the link names the bound address; bound to
  // every interface, the printed link also names an address another device can open
  const announce = (token: string) => {
    log(`Setup token: ${token}`);
    log(`Create the first superuser at ${setupUrl(token)}`);
    if (binding?.host === '0.0.0.0') {
      for (const address of lanAddresses()) log(`  or from another device: ${binding.scheme}://${address}:${binding.port}/_/#/setup?token=${token}`);
    }
    options.onSetupToken?.(token, setupUrl(token));
  };
  let tlsInfo: RunningServer['tls'] = null;
  let tls: TlsSource | null = null;
  if (options.https === true) {
    const dir = options.dir;
    if (dir === null) throw new Error('HTTPS with a certificate Deskbase makes needs a data folder to keep it in.');
    // this machine's names and current addresses; asked again at every bind, so a new address gets a new certificate
    tls = async () => {
      const name = hostname();
      const files = await ensureCertificate(dir, ['localhost', '127.0.0.1', '::1', name, `${name}.local`, ...lanAddresses()]);
      tlsInfo = { caPath: files.caPath, caFingerprint: files.caFingerprint };
      return { cert: files.cert, key: files.key };
    };
  } else if (options.https) {
    const given = options.https;
    tls = async () => given;
  }
  let logs: Logs | null = null;
  const hooksDir = hooksDirOf(options);
  const migrationsDir = migrationsDirOf(options);
  // migrations run on the hooks' workers: a runtime (without hook files, if there is no pb_hooks) when either exists
  const hasHooks = hooksDir !== null && existsSync(hooksDir);
  const hooks = hasHooks || (migrationsDir !== null && existsSync(migrationsDir))
    ? createHooks({ dir: hooksDir ?? join(migrationsDir!, 'no-pb_hooks'), timeoutMs: options.hooksTimeoutMs, watch: hasHooks && options.hooksWatch, poolSize: options.hooksPool, logger: options.hooksLogger ?? ((entry) => { if (logs) hookLogger(logs)(entry); }) })
    : null;
  try {
    const core = await createCore(store, {
      events: hooks ?? undefined,
      onSetupToken: announce,
      // failures no client hears of (a change listener's, a committed write's after-effect): printed, and kept in the logs
      onError: (error) => {
        log(`error: ${errorText(error)}`);
        logs?.logger.error(error instanceof Error ? error.message : String(error), { type: 'server', error: errorText(error) });
      },
      responseBytes: options.limits?.responseBytes,
      realtimeIdleMs: options.realtimeIdleMs,
      realtimeLimits: options.limits?.realtime,
      hashPool: options.hashPool,
      scryptN: options.scryptN,
      smtpTimeouts: options.smtpTimeouts,
    });
    // kept apart from the data: the desktop's in <dir>/logs/, a team server's in its `_logs` table (logs/index.ts)
    logs = await openLogs({ ...options.logs, store, dir: options.dir, settings: async () => (await core.settings.get()).logs, report: (error) => log(`logs: ${errorText(error)}`) });
    const running = logs;
    core.settings.onUpdate((settings) => running.apply(settings.logs));
    // routes and cron jobs are checked while the files load: against the app's built-in routes, so the app comes first
    let builtIns: { method?: string; route?: string }[] = [];
    const logic = hooks ? createRoutesAndCron(hooks, store, { builtIns: () => builtIns, cronIntervalMs: options.cronIntervalMs }) : null;
    const bodies = createBodyServices(options.limits?.bodyBytesInFlight);
    const host = options.host ?? '127.0.0.1';
    const handler = createNodeHandler(core, {
      hookRoutes: logic?.routes ?? null,
      crons: logic?.routes ?? null,
      onBuiltIns: (routes) => void (builtIns = routes),
      uiDir: options.uiDir === undefined ? defaultUiDir() : options.uiDir,
      verbose: options.verbose,
      log: (entry) => log(JSON.stringify({ time: new Date().toISOString(), ...entry })),
      // the policy follows the binding: loopback names only, or also the machine's own while on the LAN
      allowHost: hostCheck(() => binding?.host ?? host),
      bodies,
      realtimeQueueBytes: options.limits?.realtimeQueueBytes,
      logs,
    });
    if (hooks) await startHooks(hooks, core, { dataDir: options.dir });
    if (hooks && migrationsDir !== null) await applyMigrations(hooks, core, migrationsDir, log, (error) => log(`error: ${errorText(error)}`));
    const bound = await Binding.open(handler, host, options.port ?? 8090, options.strictPort === true, options.limits, tls);
    binding = bound;
    if (hooks) await hooks.trigger('onServe', {}, {}, async (p) => p);
    // no token while writes kept aside from a damaged journal may hold the first superuser (setup.ts)
    const heldBack = await core.setup.heldBack();
    if (heldBack !== null) log(heldBack);
    else await core.setup.issue();
    logic?.start();
    return runningServer(core, store, logs, bound, bodies, setupUrl, () => tlsInfo, hooks, async () => logic?.close());
  } catch (err) {
    // an onServe hook may fail after the bind: the socket is released too
    const bound: Binding | null = binding;
    if (bound !== null) await bound.close().catch(() => undefined);
    await hooks?.close();
    await logs?.close();
    await store.close();
    throw err;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function runningServer(core: Core, store: Store, logs: Logs, binding: Binding, bodies: BodyServices, setupUrl: (token: string) => string, tls: () => RunningServer['tls'], hooks: HooksRuntime | null, closeCron: () => Promise<void>): RunningServer {
  let closed = false;
  return {
    get url() { return binding.url; },
    get tls() { return tls(); },
    get host() { return binding.host; },
    get port() { return binding.port; },
    core,
    logs,
    setupToken: () => core.setup.token(),
    setupUrl: async () => {
      const t = await core.setup.token();
      return t ? setupUrl(t) : null;
    },
    lanUrls: () => binding.lanUrls(),
    rebind: (host) => binding.rebind(host),
    bodyBytesInFlight: () => bodies.inFlight.inUse(),
    hooks,
    async close() {
      if (closed) return;
      closed = true;
      await closeCron(); // before the store closes: its claims are marked finished there
      core.realtime.broker.closeAll(); // open event streams would hold the listener open
      await binding.close();
      await core.setup.withdraw(); // its setup token dies with it on every node (never throws)
      // onTerminate hooks, then the workers (a failing or slow hook cannot keep the server from closing)
      await hooks?.trigger('onTerminate', { isRestart: false }, {}, async (p) => p).catch(() => undefined); // logged by the runtime
      await hooks?.close();
      await logs.close(); // what is queued is written first (on a team server, into the store closed next)
      await store.close();
    },
  };
}
