// The hooks runtime, host side: `pb_hooks/*.pb.js` run on a pool of worker threads (worker/main.cjs),
// each loading every file (as PocketBase keeps a pool of VMs). Handlers run synchronously there and call
// the host through a synchronous bridge: a call is posted on the worker's port, the worker blocks on
// Atomics.wait, the host does the async store work here on the main thread (HostOps) and answers.
// While a worker waits, the host may send it another invocation (the hooks of a save a hook made): it
// runs on that worker's stack, inside the same scope (transaction). A top-level invocation past
// `timeoutMs` has its worker terminated and replaced; the invocation fails, the rest keeps answering.
import { existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { AsyncResource } from 'node:async_hooks';
import { join } from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { ApiError, type ErrorData } from '../errors.js';
import type { CoreEvents, EventPayload, EventScope } from '../core/events.js';

/** What a host operation gets: the scope it runs in (its transaction...) and the runtime. */
export interface OpContext {
  scope: EventScope;
  /** Runs worker-side callback `id` (one `rt.keep(fn)` gave) on the calling worker, in `scope`. */
  callback(id: number, scope: EventScope, args?: unknown[]): Promise<unknown>;
}

/** A host operation a worker calls with `rt.call(name, args)`: answers a JSON-like value or throws. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each operation declares the arguments its worker side sends
export type HostOp = (ctx: OpContext, ...args: any[]) => unknown;
export type HostOps = Record<string, HostOp>;

/**
 * Whom work is for (core's `clientNow` and `asClient`: the store shares its connections fairly between
 * clients): a host operation runs as the client of the request whose invocation called it.
 */
export interface HookClients {
  now(): string;
  run<T>(client: string, fn: () => T): T;
}

/** Before startHooks sets core's: everything is the server's own work. */
const SERVER_ONLY: HookClients = { now: () => '', run: (_client, fn) => fn() };

export interface HookLogEntry {
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  message: string;
  data: Record<string, unknown>;
}

/** Where hook output goes (console.*, $app.logger(), errors with file and line): the logs part fills it. */
export type HookLogger = (entry: HookLogEntry) => void;

export interface HooksOptions {
  /** The pb_hooks folder. */
  dir: string;
  /** Workers kept loaded (HOOK_WORKERS by default); more start for a while when all are busy. */
  poolSize?: number;
  /** How long one top-level invocation may run, in ms (HOOK_TIMEOUT_MS by default). */
  timeoutMs?: number;
  /** Reload the files when one changes (PocketBase's --hooksWatch). */
  watch?: boolean;
  logger?: HookLogger;
}

export const HOOK_TIMEOUT_MS = 10_000;
/** Workers kept loaded: measured in docs/architecture.md "Server-side hooks". */
export const HOOK_WORKERS = 2;
/** Workers at most, extra ones included (a hook waiting on a write that waits on another hook). */
const MAX_WORKERS = 16;
/** An invocation outside a write waits this long for a busy worker before an extra one starts. */
const EXTRA_AFTER_MS = 100;
/** An invocation waiting this long for handlers running JavaScript gets an extra worker. */
const LONG_WAIT_MS = 1000;
/** An extra worker exits after this long idle. */
const EXTRA_IDLE_MS = 30_000;

interface Waiter {
  resolve: (w: HookWorker) => void;
  timer: NodeJS.Timeout | null;
}

export interface Registration {
  event: string;
  filters: string[];
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A message from a worker (worker/main.cjs `post`). */
type WorkerMessage = { t: string } & Record<string, unknown>;

/** An error as the worker sends it (main.cjs `serializeError`). */
interface SerializedError {
  status: number;
  message: string;
  data: Record<string, unknown>;
  hostErrorId?: number;
  workerErrorId?: number;
  file?: string;
  line?: number;
  stack?: string;
}

/** A stopped invocation: its worker ran past the time limit (or died). */
export class HookStopped extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}

let nextScope = 1;

/** One worker thread with its bridge. */
class HookWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal = new SharedArrayBuffer(4);
  private readonly flag = new Int32Array(this.signal);
  /** Invocations and callbacks this host sent, by id. */
  private readonly waiting = new Map<number, Pending>();
  /** Scopes by the id the worker sends back with each call. */
  readonly scopes = new Map<number, EventScope>();
  /** The client each scope's invocation or callback was asked for (HookClients.now when sent). */
  private readonly scopeClients = new Map<number, string>();
  private nextId = 1;
  busy = false;
  dead: Error | null = null;
  /**
   * Fires as the worker is stopped or dies: every host call it made runs with it as its scope's
   * `stopped` (core/events.ts), so a write begun for it and not committed yet rolls back.
   */
  private readonly stop = new AbortController();
  /** An extra worker's exit once idle (HooksRuntime.release). */
  idleTimer: NodeJS.Timeout | null = null;
  /** Host calls this worker is blocked on now (it runs no JavaScript meanwhile). */
  waitingOnHost = 0;
  /** Invocations sent so far (each one's id for its e.next() action). */
  invokes = 0;
  readonly ready: Promise<Registration[]>;

  constructor(
    dir: string,
    files: string[],
    private readonly ops: HostOps,
    private readonly log: HookLogger,
    private readonly nextAction: (worker: HookWorker, invokeId: number, payload: EventPayload, scope: EventScope) => Promise<EventPayload>,
    private readonly clients: () => HookClients = () => SERVER_ONLY,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const { entry, eval: inline } = workerEntry();
    this.worker = new Worker(entry, { eval: inline, workerData: { port: port2, signal: this.signal, dir, files, workerId: 0 }, transferList: [port2] });
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.port.on('message', (m: WorkerMessage) => {
        if (m.t === 'ready') resolve(m.handlers as Registration[]);
        else if (m.t === 'loadFailed') reject(loadError(dir, m.error as SerializedError));
        else this.onMessage(m);
      });
      this.worker.on('error', (err) => {
        this.fail(err);
        reject(err);
      });
      this.worker.on('exit', () => {
        this.fail(new HookStopped('A hook worker stopped.'));
        reject(new Error('the hooks worker exited while loading'));
      });
    });
  }

  private fail(error: Error): void {
    if (this.dead) return;
    this.dead = error;
    this.stop.abort(error);
    for (const p of this.waiting.values()) p.reject(error);
    this.waiting.clear();
    this.port.close();
  }

  private send(message: unknown): void {
    this.port.postMessage(message);
    Atomics.store(this.flag, 0, 1);
    Atomics.notify(this.flag, 0);
  }

  /** Sends an invocation (handlers of an event) or a callback and waits for its answer. */
  request(message: Record<string, unknown>, scope: EventScope): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    const scopeId = nextScope++;
    this.scopes.set(scopeId, scope);
    this.scopeClients.set(scopeId, this.clients().now());
    return new Promise<unknown>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ ...message, id, scope: scopeId });
    }).finally(() => {
      this.scopes.delete(scopeId);
      this.scopeClients.delete(scopeId);
    });
  }

  private onMessage(m: WorkerMessage): void {
    if (m.t === 'done' || m.t === 'failed') {
      const p = this.waiting.get(m.id as number);
      if (!p) return;
      this.waiting.delete(m.id as number);
      if (m.t === 'done') p.resolve(m.value);
      else p.reject(workerError(m.error as SerializedError, this.thrown));
    } else if (m.t === 'call') void this.answer(m as unknown as { id: number; op: string; args: unknown[]; scope: number });
    else if (m.t === 'log') this.log({ level: m.level as HookLogEntry['level'], message: String(m.message), data: (m.data ?? {}) as Record<string, unknown> });
  }

  /** Errors thrown by host operations, by id: a hook that lets one through answers the original. */
  readonly thrown = new Map<number, unknown>();
  private nextThrown = 1;

  private async answer(m: { id: number; op: string; args: unknown[]; scope: number }): Promise<void> {
    const scope: EventScope = { ...(this.scopes.get(m.scope) ?? {}), stopped: this.stop.signal };
    // as the work of the client its invocation was for (the worker's own context is the server's start)
    const client = this.scopeClients.get(m.scope) ?? '';
    this.waitingOnHost++;
    try {
      const value = await this.clients().run(client, async (): Promise<unknown> => {
        if (m.op === '__next') return this.nextAction(this, m.args[0] as number, m.args[1] as EventPayload, scope);
        const op = this.ops[m.op];
        if (!op) throw new ApiError(400, `${m.op} is not supported by Deskbase hooks.`);
        const ctx: OpContext = { scope, callback: (id, s, args) => this.request({ t: 'callback', callback: id, args }, s) };
        return op(ctx, ...m.args);
      });
      if (!this.dead) this.send({ t: 'result', id: m.id, value: value === undefined ? null : value });
    } catch (err) {
      if (this.dead) return;
      const hostErrorId = this.nextThrown++;
      this.thrown.set(hostErrorId, err);
      if (this.thrown.size > 1000) this.thrown.delete(this.thrown.keys().next().value as number);
      const e = err instanceof ApiError ? err : null;
      // an error this worker threw (a callback's, a nested hook's) goes back to it as itself
      const workerErrorId = (err as { workerErrorId?: number } | null)?.workerErrorId;
      this.send({ t: 'error', id: m.id, error: { status: e?.status ?? 400, message: e?.message ?? (err instanceof Error ? err.message : String(err)), data: e?.data ?? {}, hostErrorId, workerErrorId } });
    } finally {
      this.waitingOnHost--;
    }
  }

  terminate(): void {
    this.fail(new HookStopped('A hook worker stopped.'));
    void this.worker.terminate();
  }
}

/**
 * The worker's entry: in the source tree (tsx, Vitest) the file beside this one, which requires its
 * siblings; in a bundle (scripts/build.mjs puts the bundled worker at worker/main.cjs beside it) the
 * bundled file's text, run as an inline worker: Electron reads it from inside app.asar, where a worker
 * could not be started from a file.
 */
function workerEntry(): { entry: URL | string; eval: boolean } {
  const here = new URL('./worker/main.cjs', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return { entry: readFileSync(here, 'utf8'), eval: true };
  return { entry: here, eval: false };
}

function loadError(dir: string, error: SerializedError): Error {
  const where = error.file ? ` (${join(dir, error.file)}:${error.line})` : '';
  return new Error(`pb_hooks failed to load: ${error.message}${where}`);
}

/** A hook's error as the request's error: the host's own error when a hook let one through. */
function workerError(error: SerializedError, thrown: Map<number, unknown>): unknown {
  if (error.hostErrorId !== undefined && thrown.has(error.hostErrorId)) return thrown.get(error.hostErrorId);
  const status = error.status >= 400 && error.status < 600 ? error.status : 400;
  const message = error.status >= 400 ? error.message : 'Something went wrong while processing your request.';
  const out = new ApiError(status, message, status >= 500 ? {} : (error.data as ErrorData));
  Object.assign(out, { hookFile: error.file, hookLine: error.line, hookMessage: error.message, hookStack: error.stack, workerErrorId: error.workerErrorId });
  return out;
}

/** The `*.pb.js` files of `dir` in name order (none when the folder is missing). */
export function hookFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir).filter((n) => n.endsWith('.pb.js')).sort();
}

interface Loaded {
  files: string[];
  registrations: Registration[];
  /** The hook files' own (`registrations` without the `__…` events the runtime's features register, a migration file's run): the same array until the next load. */
  visible: readonly Registration[];
  /** Handler ids per event. */
  byEvent: Map<string, number[]>;
  idle: HookWorker[];
  all: Set<HookWorker>;
}

/**
 * The runtime: `events` is what core calls (CoreEvents); `ops` the host operations workers call
 * (features add theirs with `addOps` before `start`).
 */
const NONE: readonly Registration[] = [];

export class HooksRuntime implements CoreEvents {
  private readonly ops: HostOps = {};
  private loaded: Loaded | null = null;
  private readonly queue: Waiter[] = [];
  private readonly actions = new Map<HookWorker, Map<number, (payload: EventPayload, scope: EventScope) => Promise<EventPayload>>>();
  private watcher: FSWatcher | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private closed = false;
  readonly timeoutMs: number;
  readonly poolSize: number;
  readonly log: HookLogger;
  /**
   * The async context the runtime was made in (the server's start): every worker is spawned in it, so
   * what its port delivers (host operations, e.next()) never runs in the context of the request that
   * happened to need an extra worker, for that worker's life; each runs as the client of the request
   * its invocation was for (HookClients), the server's own ('') for cron and start-up.
   */
  private readonly home = new AsyncResource('DeskbaseHooks');

  constructor(readonly options: HooksOptions) {
    this.timeoutMs = options.timeoutMs ?? HOOK_TIMEOUT_MS;
    this.poolSize = Math.max(1, options.poolSize ?? HOOK_WORKERS);
    this.log = options.logger ?? defaultLogger;
  }

  /** Whom host operations run for (startHooks: core's clients); the server's own until set. */
  private clients: HookClients = SERVER_ONLY;

  useClients(clients: HookClients): void {
    this.clients = clients;
  }

  /** Adds host operations (name → function); later names replace earlier ones. */
  addOps(ops: HostOps): void {
    Object.assign(this.ops, ops);
  }

  /** Loads the files into the pool; rejects (naming the file and line) when one fails to load. */
  async start(): Promise<void> {
    this.loaded = await this.load();
    if (this.options.watch) this.watchFiles();
  }

  /** Every registered handler's event and filters, in registration order (routes and crons find theirs here). */
  get registrations(): readonly Registration[] {
    return this.loaded?.visible ?? NONE;
  }

  /** Every registered handler, the features' own `__…` events too (routes.ts reads its routes and cron jobs here): the same array until the next load. */
  get allRegistrations(): readonly Registration[] {
    return this.loaded?.registrations ?? NONE;
  }

  /** The handler count (0: no hook file registered anything). */
  get handlerCount(): number {
    return this.registrations.length;
  }

  private async load(): Promise<Loaded> {
    const files = hookFiles(this.options.dir);
    const first = this.spawn(files);
    let registrations: Registration[];
    try {
      registrations = await this.whenLoaded(first);
    } catch (err) {
      first.terminate();
      throw err;
    }
    const byEvent = new Map<string, number[]>();
    registrations.forEach((r, i) => byEvent.set(r.event, [...(byEvent.get(r.event) ?? []), i]));
    const visible = registrations.filter((r) => !r.event.startsWith('__'));
    const loaded: Loaded = { files, registrations, visible, byEvent, idle: [first], all: new Set([first]) };
    // the rest of the pool loads in the background: the first serves meanwhile
    for (let i = 1; i < this.poolSize && files.length > 0; i++) {
      const w = this.spawn(files);
      loaded.all.add(w);
      this.whenLoaded(w).then(() => this.release(w, loaded), () => loaded.all.delete(w));
    }
    return loaded;
  }

  /** A worker's handlers once its files loaded; a file still running after the time limit (a loop at load) fails it. */
  private whenLoaded(w: HookWorker): Promise<Registration[]> {
    let timer: NodeJS.Timeout | null = null;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        w.terminate();
        reject(new Error(`pb_hooks failed to load: the files were still running after ${this.timeoutMs} ms (a loop at load time?)`));
      }, this.timeoutMs);
    });
    return Promise.race([w.ready, limit]).finally(() => {
      if (timer) clearTimeout(timer);
    });
  }

  private spawn(files: string[]): HookWorker {
    return this.home.runInAsyncScope(() => this.worker(files));
  }

  private worker(files: string[]): HookWorker {
    return new HookWorker(this.options.dir, files, this.ops, this.log, (w, id, payload, scope) => {
      const action = this.actions.get(w)?.get(id);
      if (!action) throw new ApiError(400, 'e.next() was called after its event ended.');
      return action(payload, scope);
    }, () => this.clients);
  }

  has(event: string, collection?: { id: string; name: string }): boolean {
    const ids = this.loaded?.byEvent.get(event);
    if (!ids) return false;
    if (!collection) return true;
    return ids.some((i) => matches(this.loaded!.registrations[i], collection));
  }

  /**
   * Takes an idle worker. With none idle, an invocation inside a write (which holds the single writer)
   * gets an extra worker at once, since the busy ones may be waiting for that very write; any other waits
   * for a worker to come free, and gets an extra one only when, EXTRA_AFTER_MS on, every worker is still
   * blocked on the host (their handlers may be waiting for work that needs a worker, such as a hook's mail
   * whose onMailerSend must run: it never waits forever), or after LONG_WAIT_MS behind long handlers.
   * Short handlers are just waited for: starting a worker costs 0.2-0.8 s of a core. Extra workers exit after EXTRA_IDLE_MS idle (MAX_WORKERS in all).
   */
  private async acquire(inWrite: boolean): Promise<HookWorker> {
    const loaded = this.loaded!;
    const w = loaded.idle.pop();
    if (w) {
      w.busy = true;
      if (w.idleTimer) clearTimeout(w.idleTimer);
      return w;
    }
    if (inWrite && loaded.all.size < MAX_WORKERS) return this.extra(loaded);
    return new Promise<HookWorker>((resolve, reject) => {
      const waiter: Waiter = { resolve, timer: null };
      const since = performance.now();
      const check = () => {
        const i = this.queue.indexOf(waiter);
        if (i < 0) return; // served meanwhile
        // every worker blocked on the host, or this invocation kept waiting past a second by long handlers
        const stuck = [...loaded.all].every((x) => x.busy && x.waitingOnHost > 0) || performance.now() - since > LONG_WAIT_MS;
        if (!stuck || loaded.all.size >= MAX_WORKERS || loaded !== this.loaded) {
          waiter.timer = setTimeout(check, EXTRA_AFTER_MS);
          return;
        }
        this.queue.splice(i, 1);
        this.extra(loaded).then(resolve, reject);
      };
      waiter.timer = setTimeout(check, EXTRA_AFTER_MS);
      this.queue.push(waiter);
    });
  }

  private replace(loaded: Loaded): void {
    const w = this.spawn(loaded.files);
    loaded.all.add(w);
    this.whenLoaded(w).then(() => this.release(w, loaded), () => loaded.all.delete(w));
  }

  private async extra(loaded: Loaded): Promise<HookWorker> {
    const extra = this.spawn(loaded.files);
    loaded.all.add(extra);
    try {
      await this.whenLoaded(extra);
    } catch (err) {
      loaded.all.delete(extra);
      throw err;
    }
    extra.busy = true;
    return extra;
  }

  private release(w: HookWorker, loaded = this.loaded): void {
    w.busy = false;
    if (!loaded || loaded !== this.loaded || w.dead || this.closed) {
      loaded?.all.delete(w);
      if (!w.dead) w.terminate();
      // a worker stopped past its time limit (or that exited) is replaced, so the pool keeps its size
      if (loaded && loaded === this.loaded && !this.closed && loaded.all.size < this.poolSize) this.replace(loaded);
      return;
    }
    const waiter = this.queue.shift();
    if (waiter) {
      if (waiter.timer) clearTimeout(waiter.timer);
      w.busy = true;
      waiter.resolve(w);
      return;
    }
    loaded.idle.push(w);
    if (loaded.all.size > this.poolSize) {
      // an extra worker: exits once it has been idle a while (the pool keeps poolSize)
      w.idleTimer = setTimeout(() => {
        const i = loaded.idle.indexOf(w);
        if (i < 0 || loaded.all.size <= this.poolSize) return;
        loaded.idle.splice(i, 1);
        loaded.all.delete(w);
        w.terminate();
      }, EXTRA_IDLE_MS);
      w.idleTimer.unref();
    }
  }

  async trigger(
    event: string,
    payload: EventPayload,
    scope: EventScope,
    action: (payload: EventPayload, scope: EventScope) => Promise<EventPayload>,
    collection?: { id: string; name: string },
    /** This invocation's time limit in place of `timeoutMs` (a migration's: migrations-host.ts). */
    limitMs?: number,
  ): Promise<{ payload: EventPayload; ran: boolean }> {
    const limit = limitMs ?? this.timeoutMs;
    const loaded = this.loaded;
    const ids = loaded?.byEvent.get(event)?.filter((i) => !collection || matches(loaded.registrations[i], collection)) ?? [];
    if (!loaded || ids.length === 0) return { payload: await action(payload, scope), ran: true };
    const nestedIn = scope.worker as HookWorker | undefined;
    const worker = nestedIn && !nestedIn.dead ? nestedIn : await this.acquire(scope.tx !== undefined);
    const invokeId = ++worker.invokes;
    const actions = this.actions.get(worker) ?? new Map();
    this.actions.set(worker, actions);
    // the action runs in this scope, with this worker as the one nested events go to
    actions.set(invokeId, action);
    let timer: NodeJS.Timeout | null = null;
    try {
      const run = worker.request({ t: 'invoke', event, handlers: ids, payload, invoke: invokeId }, { ...scope, worker } as EventScope);
      const answer = nestedIn
        ? await run
        : await Promise.race([
            run,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => {
                worker.terminate();
                reject(new HookStopped(`The ${event} hook ran past its time limit (${limit} ms) and was stopped.`));
              }, limit);
            }),
          ]);
      return answer as { payload: EventPayload; ran: boolean };
    } catch (err) {
      this.reportHookError(event, err);
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
      actions.delete(invokeId);
      if (!nestedIn) this.release(worker, loaded);
    }
  }

  private reportHookError(event: string, err: unknown): void {
    const e = err as { hookFile?: string; hookLine?: number; hookMessage?: string; message?: string };
    if (err instanceof HookStopped) this.log({ level: 'ERROR', message: e.message ?? '', data: { event } });
    else if (e.hookFile !== undefined || e.hookMessage !== undefined) {
      this.log({ level: 'ERROR', message: `${event} hook failed: ${e.hookMessage ?? e.message}`, data: { event, file: e.hookFile, line: e.hookLine } });
    }
  }

  private watchFiles(): void {
    const changed = () => {
      if (this.reloadTimer) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => void this.reload(), 100); // an editor's save is several events
    };
    try {
      // files required from subfolders count too (recursive where the platform has it)
      try {
        this.watcher = watch(this.options.dir, { recursive: true }, changed);
      } catch {
        this.watcher = watch(this.options.dir, changed);
      }
      this.watcher.unref();
    } catch (err) {
      this.log({ level: 'WARN', message: `pb_hooks is not watched: ${(err as Error).message}`, data: {} });
    }
  }

  /**
   * Loads the files again into new workers, then swaps them in: invocations under way finish on the old
   * ones, new ones go to the new. A file that fails to load keeps the old hooks (logged).
   */
  async reload(): Promise<void> {
    if (this.closed) return;
    let next: Loaded;
    try {
      next = await this.load();
    } catch (err) {
      this.log({ level: 'ERROR', message: `pb_hooks not reloaded: ${(err as Error).message}`, data: {} });
      return;
    }
    const old = this.loaded;
    this.loaded = next;
    if (old) {
      for (const w of old.idle.splice(0)) {
        w.terminate();
        old.all.delete(w);
      }
    }
    // queued invocations go to the new pool
    while (this.queue.length > 0 && next.idle.length > 0) {
      const waiter = this.queue.shift()!;
      if (waiter.timer) clearTimeout(waiter.timer);
      const w = next.idle.pop()!;
      w.busy = true;
      waiter.resolve(w);
    }
    this.log({ level: 'INFO', message: `pb_hooks reloaded (${next.files.length} files, ${next.registrations.length} handlers)`, data: {} });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    for (const w of this.loaded?.all ?? []) if (!w.busy) w.terminate();
  }
}

/** A handler's collection filters: names or ids; `_pb_users_auth_` (PocketBase's users id, hard-coded by apps) names `users`. */
function matches(r: Registration, c: { id: string; name: string }): boolean {
  return r.filters.length === 0 || r.filters.includes(c.name) || r.filters.includes(c.id) || (c.name === 'users' && r.filters.includes('_pb_users_auth_'));
}

function defaultLogger(entry: HookLogEntry): void {
  const data = Object.keys(entry.data).length > 0 ? ` ${JSON.stringify(entry.data)}` : '';
  process.stderr.write(`[hooks] ${entry.level} ${entry.message}${data}\n`);
}
