// Cron jobs as PocketBase's tools/cron runs them: jobs by id (adding an id again replaces it), a tick at
// every minute boundary (UTC) running the jobs due then, `GET /api/crons`'s order. Beyond PocketBase:
// a job whose previous run is still going when its next tick comes is skipped and logged (on this node,
// and through the claims on every node: cron-claims.ts), and on a team server each tick runs once
// across the nodes. A run asked by hand (`POST /api/crons/{id}`) while the job's run is going is not
// dropped: it runs as soon as that run ends (asks made meanwhile share that one run, as PocketBase's
// would overlap instead). The clock and the tick's length are the caller's (tests move them).
import { CronExpressionError, isDue, parseSchedule, type Schedule } from './cron-schedule.js';
import type { CronClaims } from './cron-claims.js';

export { CronExpressionError };

export type CronLog = (entry: { level: 'info' | 'warn' | 'error'; message: string } & Record<string, unknown>) => void;

export interface CronJobInfo {
  id: string;
  expression: string;
}

export interface CronOptions {
  /** The clock in ms since the epoch (default Date.now). */
  now?: () => number;
  /** The length of one tick (default one minute, as PocketBase). */
  intervalMs?: number;
  /** Claims shared by the nodes (cron-claims.ts); without them every tick runs here. */
  claims?: CronClaims | null;
  log?: CronLog;
  /** Called before each tick (the hooks' jobs brought in step with the files loaded: routes.ts `sync`). */
  beforeTick?: () => void;
}

interface Job {
  id: string;
  schedule: Schedule;
  run: () => Promise<void>;
}

/** A job's run: its outcome is logged here, never thrown to the tick. */
export type RunOutcome = 'ran' | 'failed' | 'skipped' | 'taken';

export class Cron {
  private readonly jobsById = new Map<string, Job>();
  /** Ids whose run is going on this node, and its end (kept across a reload's replacement of the jobs). */
  private readonly running = new Map<string, Promise<RunOutcome>>();
  /** Runs asked by hand while the job's run was going: each starts when that run ends. */
  private readonly asked = new Map<string, Promise<RunOutcome>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly claims: CronClaims | null;
  private readonly log: CronLog;
  private readonly beforeTick: () => void;

  constructor(options: CronOptions = {}) {
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? 60_000;
    this.claims = options.claims ?? null;
    this.log = options.log ?? (() => {});
    this.beforeTick = options.beforeTick ?? (() => {});
  }

  /** Registers (or replaces) job `id`; throws CronExpressionError with PocketBase's message for a bad expression. */
  add(id: string, expression: string, run: () => Promise<void>): void {
    if (typeof run !== 'function') throw new CronExpressionError('failed to add new cron job: fn must be non-nil function');
    let schedule: Schedule;
    try {
      schedule = parseSchedule(expression);
    } catch (error) {
      throw new CronExpressionError(`failed to add new cron job: ${(error as Error).message}`, { cause: error });
    }
    this.jobsById.delete(id); // a replaced id moves to the end, as PocketBase's slice
    this.jobsById.set(id, { id, schedule, run });
  }

  remove(id: string): void {
    this.jobsById.delete(id);
  }

  removeAll(): void {
    this.jobsById.clear();
  }

  has(id: string): boolean {
    return this.jobsById.has(id);
  }

  /** The jobs as `GET /api/crons` lists them: by id, PocketBase's own `__pb*` jobs last. */
  jobs(): CronJobInfo[] {
    const list = [...this.jobsById.values()].map((j) => ({ id: j.id, expression: j.schedule.expression }));
    return list.sort((a, b) => {
      const pa = a.id.startsWith('__pb');
      const pb = b.id.startsWith('__pb');
      if (pa !== pb) return pa ? 1 : -1;
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
  }

  /** Runs every job due at `at` (a tick); resolves when their runs end. */
  async tick(at = this.now()): Promise<void> {
    this.beforeTick();
    const tick = Math.round(at / this.intervalMs) * this.intervalMs;
    const due = [...this.jobsById.values()].filter((j) => isDue(j.schedule, tick));
    await Promise.all(due.map((j) => this.runJob(j, tick)));
  }

  /** Runs job `id` now, outside its schedule (`POST /api/crons/{id}`); false when there is no such job. */
  runNow(id: string): Promise<RunOutcome> | null {
    const job = this.jobsById.get(id);
    if (!job) return null;
    if (!this.running.has(id)) return this.runJob(job, null);
    let next = this.asked.get(id);
    if (next === undefined) {
      next = this.afterRunning(id);
      this.asked.set(id, next);
    }
    return next;
  }

  /** Job `id`'s run once the one going has ended (and any a tick started meanwhile): the job as it is then. */
  private async afterRunning(id: string): Promise<RunOutcome> {
    for (let going = this.running.get(id); going !== undefined; going = this.running.get(id)) await going;
    this.asked.delete(id);
    const job = this.jobsById.get(id);
    if (!job) return 'skipped'; // removed meanwhile (a reload without it)
    return this.runJob(job, null);
  }

  private runJob(job: Job, tick: number | null): Promise<RunOutcome> {
    if (this.running.has(job.id)) {
      this.log({ level: 'warn', message: `[cron] job "${job.id}" skipped: its previous run is still going`, jobId: job.id });
      return Promise.resolve('skipped');
    }
    // the run counts as going until its claim is marked finished (a run asked meanwhile follows it)
    const run = this.claimAndRun(job, tick).finally(() => this.running.delete(job.id));
    this.running.set(job.id, run);
    return run;
  }

  private async claimAndRun(job: Job, tick: number | null): Promise<RunOutcome> {
    let claimed = false;
    try {
      if (tick !== null && this.claims) {
        const claim = await this.claims.claim(job.id, tick, this.now());
        if (claim === 'taken') return 'taken';
        if (claim === 'running') {
          this.log({ level: 'warn', message: `[cron] job "${job.id}" skipped: its previous run is still going on another node`, jobId: job.id });
          return 'skipped';
        }
        claimed = true;
      }
      try {
        await job.run();
        return 'ran';
      } catch (error) {
        // a hook's error carries what the hook threw and where (runtime.ts), beside the answer it would make
        const e = error as { hookMessage?: string; hookFile?: string; hookLine?: number; message?: string };
        this.log({
          level: 'error', message: '[cronAdd] failed to execute cron job', jobId: job.id, error: e?.hookMessage ?? e?.message ?? String(error),
          ...(e?.hookFile === undefined ? {} : { file: e.hookFile, line: e.hookLine }),
        });
        return 'failed';
      }
    } catch (error) {
      this.log({ level: 'error', message: `[cron] job "${job.id}" could not be claimed`, jobId: job.id, error: error instanceof Error ? error.message : String(error) });
      return 'failed';
    } finally {
      if (claimed && tick !== null) {
        await this.claims!.finish(job.id, tick, this.now()).catch((error: unknown) =>
          this.log({ level: 'error', message: `[cron] job "${job.id}": its run could not be marked finished`, jobId: job.id, error: String(error) }));
      }
    }
  }

  /** Starts ticking at each interval boundary of the clock (restarting when started already). */
  start(): void {
    this.stop();
    const schedule = () => {
      const now = this.now();
      const delay = this.intervalMs - (now % this.intervalMs);
      this.timer = setTimeout(() => {
        schedule();
        void this.tick(now + delay);
      }, delay);
      this.timer.unref();
    };
    schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops ticking and marks this node's claimed runs finished (the server is closing; its runs end with it). */
  async close(): Promise<void> {
    this.stop();
    await this.claims?.release(this.now()).catch((error: unknown) =>
      this.log({ level: 'error', message: '[cron] the runs of this node could not be marked finished', error: String(error) }));
  }

  get started(): boolean {
    return this.timer !== null;
  }
}
