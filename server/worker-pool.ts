// The one pool of worker threads (password hashes: core/scrypt-pool.ts; large request bodies:
// http/body-worker.ts). Work that costs the event loop time in proportion to its input runs here
// instead, so other requests are served meanwhile. A leaf: it imports only Node.
//
// What every pool gets: the worker's source inline (eval, so that bundles such as the Electron main
// process need no extra file); workers started on first use, up to `size`, exiting when idle and never
// keeping the process alive; a dead worker's job rejected and the worker replaced on the next job. What
// a pool may ask for: a bound on the jobs waiting (`maxWaiting`) and on those one client has running or
// waiting (`maxPerClient`), both refused with `tooMany()`; a time limit per job (`jobMs`, counted from
// when its worker is running; on Linux the worker thread's own CPU time, so that a niced worker starved
// by a busy machine never fails a good job), past which the worker is terminated and replaced and the
// job rejected with `stopped(ms)`; workers at a lower priority (`nice`, on Linux: nice 19 takes only
// the CPU the event loop leaves), all but `normalWorkers` of them, which stay at the process's own and
// are handed jobs first (a niced thread cannot be raised back without privileges, so a worker keeps
// the priority it started with). A niced worker takes the first waiting job of a client that has
// another job running or waiting (a flood's overflow) before the head of the queue: on a busy machine a
// niced thread is starved, and a lone job from a client given to it would wait while the normal
// workers went on serving the flood behind it.
//
// Why our own and not piscina or tinypool: both load the worker from a file (a bundle would have to
// ship and find it), neither bounds jobs per client, and neither nices its threads; see
// docs/architecture.md, "Decisions and their measured reasons".
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface WorkerPoolOptions {
  /** The worker's CommonJS source: it answers each message with one `postMessage`. */
  source: string;
  /** Workers at once. */
  size: number;
  /** Idle workers exit once no job has run for this long. */
  idleMs?: number;
  /** Jobs waiting for a worker, whoever asked; past it `tooMany()`. Unbounded by default. */
  maxWaiting?: number;
  /** Jobs one client key may have running or waiting; past it `tooMany()`. The key '' is never capped. */
  maxPerClient?: number;
  /** How long one job may hold its worker; unbounded by default. */
  jobMs?: number;
  /** On Linux, workers lower their own priority to this nice value before their first job (none by default). */
  nice?: number;
  /** With `nice`: this many workers stay at the process's own priority, and jobs go to them first. */
  normalWorkers?: number;
  tooMany?: () => Error;
  stopped?: (ms: number) => Error;
  /** Names the pool in the error of a worker that exited. */
  name: string;
}

interface Job {
  /** Who asked ('' the server itself). */
  client: string;
  message: unknown;
  transfer: ArrayBuffer[];
  resolve: (reply: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
  /** The worker thread's CPU time (ms) when the job's time began, where it can be read. */
  cpuAtStart?: number | null;
}

/**
 * Each worker first tells its thread id (Linux: /proc/thread-self), so that a job's limit counts the
 * thread's own CPU time (its schedstat), not the time a niced thread waits for a busy machine.
 */
const TELL_THREAD = `try { require('node:worker_threads').parentPort.postMessage({ [${JSON.stringify('\u0000tid')}]: Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()) }); } catch {}\n`;
const TID_KEY = '\u0000tid';

/** A thread's CPU time so far in ms (Linux's schedstat), or null where it cannot be read. */
function threadCpuMs(tid: number | undefined): number | null {
  if (tid === undefined) return null;
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

// Linux applies a nice value to the calling thread only; elsewhere setPriority(0) would lower the whole process, so skip.
const lowerTo = (nice: number) => `if (process.platform === 'linux') { try { require('node:os').setPriority(0, ${nice}); } catch {} }\n`;

export class WorkerPool<Message, Reply> {
  private idle: Worker[] = [];
  private busy = new Map<Worker, Job>();
  private queue: Job[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  /** Jobs running or waiting per client key. */
  private perClient = new Map<string, number>();
  /** Workers that have started (a job's time limit counts from then). */
  private online = new Set<Worker>();
  /** Each worker's OS thread id, once it told it (TELL_THREAD). */
  private tids = new Map<Worker, number>();
  /** Workers at the process's own priority (all of them without `nice`). */
  private normal = new Set<Worker>();

  constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Runs one job. `client` names who asked ('' the server itself, bounded only by the queue);
   * `transfer` lists buffers that move to the worker without a copy.
   */
  run(message: Message, client = '', transfer: ArrayBuffer[] = []): Promise<Reply> {
    const { maxWaiting = Infinity, maxPerClient = Infinity } = this.options;
    const mine = this.perClient.get(client) ?? 0;
    if (this.queue.length >= maxWaiting || (client !== '' && mine >= maxPerClient)) return Promise.reject(this.tooMany());
    if (client !== '') this.perClient.set(client, mine + 1);
    const done = () => {
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
    return new Promise<Reply>((resolve, reject) => {
      const settle = <T>(f: (v: T) => void) => (v: T) => {
        if (client !== '') done();
        f(v);
      };
      this.queue.push({ client, message, transfer, resolve: settle(resolve as (reply: unknown) => void), reject: settle(reject) });
      this.dispatch();
    });
  }

  private tooMany(): Error {
    return this.options.tooMany?.() ?? new Error(`${this.options.name}: too many jobs`);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.nextWorker();
      if (worker === null) return;
      const job = this.normal.has(worker) ? (this.queue.shift() as Job) : this.overflowFirst();
      this.busy.set(worker, job);
      if (this.online.has(worker)) this.armJobTimer(worker, job);
      worker.postMessage(job.message, job.transfer);
    }
    this.armIdleTimer();
  }

  /** For a niced worker: the first waiting job of a client with more than this one (see the header), else the head. */
  private overflowFirst(): Job {
    const i = this.queue.findIndex((job) => job.client !== '' && (this.perClient.get(job.client) ?? 0) > 1);
    return this.queue.splice(Math.max(0, i), 1)[0];
  }

  /** An idle worker at the normal priority, else a new one, else an idle niced one, else a new niced one; null when all are busy. */
  private nextWorker(): Worker | null {
    const { size, nice, normalWorkers = 0 } = this.options;
    const room = this.idle.length + this.busy.size < size;
    const normal = this.idle.findLastIndex((w) => this.normal.has(w));
    if (normal >= 0) return this.idle.splice(normal, 1)[0];
    if (room && (nice === undefined || this.normal.size < normalWorkers)) return this.spawn(false);
    return this.idle.pop() ?? (room ? this.spawn(true) : null);
  }

  private spawn(niced: boolean): Worker {
    const worker = new Worker(TELL_THREAD + (niced ? lowerTo(this.options.nice ?? 0) : '') + this.options.source, { eval: true });
    worker.unref();
    if (!niced) this.normal.add(worker);
    // a new worker's start-up is not its job's cost: the job's time counts from when it runs
    worker.once('online', () => {
      this.online.add(worker);
      const job = this.busy.get(worker);
      if (job && job.timer === undefined) this.armJobTimer(worker, job);
    });
    worker.on('message', (reply: unknown) => {
      if (typeof reply === 'object' && reply !== null && TID_KEY in reply) {
        const tid = (reply as Record<string, number>)[TID_KEY];
        this.tids.set(worker, tid);
        // a job whose time began before the thread told its id counts its CPU time from now
        const running = this.busy.get(worker);
        if (running?.timer !== undefined && running.cpuAtStart === null) running.cpuAtStart = threadCpuMs(tid);
        return;
      }
      const job = this.busy.get(worker);
      if (job === undefined) return; // a stopped worker's late answer
      clearTimeout(job.timer);
      this.busy.delete(worker);
      this.idle.push(worker);
      job.resolve(reply);
      this.dispatch();
    });
    const lost = (error: Error) => {
      this.online.delete(worker);
      this.normal.delete(worker);
      this.tids.delete(worker);
      const job = this.busy.get(worker);
      clearTimeout(job?.timer);
      this.busy.delete(worker);
      this.idle = this.idle.filter((w) => w !== worker);
      job?.reject(error);
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`${this.options.name} worker exited (code ${code})`)));
    return worker;
  }

  private armJobTimer(worker: Worker, job: Job): void {
    const ms = this.options.jobMs;
    if (ms === undefined || !Number.isFinite(ms)) return;
    job.cpuAtStart = threadCpuMs(this.tids.get(worker));
    const check = (): void => {
      // the thread's own CPU time where it can be read: a job waiting for a busy machine is not stopped
      const from = job.cpuAtStart ?? null;
      const now = from === null ? null : threadCpuMs(this.tids.get(worker));
      const spent = now === null || from === null ? ms : now - from;
      if (spent >= ms) {
        this.stop(worker, job, ms);
        return;
      }
      job.timer = setTimeout(check, Math.max(5, ms - spent));
      job.timer.unref();
    };
    job.timer = setTimeout(check, ms);
    job.timer.unref();
  }

  /** A job past its time limit: its worker is terminated (a replacement starts with the next job) and the caller told. */
  private stop(worker: Worker, job: Job, ms: number): void {
    if (this.busy.get(worker) !== job) return;
    this.busy.delete(worker);
    this.online.delete(worker);
    this.normal.delete(worker);
    this.tids.delete(worker);
    void worker.terminate();
    job.reject(this.options.stopped?.(ms) ?? new Error(`${this.options.name} job stopped after ${ms} ms`));
    this.dispatch();
  }

  /** Idle workers exit once nothing has run for `idleMs`. */
  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.idle.length === 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.busy.size > 0) return;
      for (const worker of this.idle.splice(0)) {
        this.normal.delete(worker);
        void worker.terminate();
      }
    }, this.options.idleMs ?? 30_000);
    this.idleTimer.unref();
  }
}
