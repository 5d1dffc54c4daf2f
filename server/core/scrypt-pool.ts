// scrypt (and bcrypt, for hashes moved from PocketBase) on a few worker threads that, on Linux, run at the lowest priority (nice 19). A sign-in
// costs tens of milliseconds of CPU; on libuv's pool (4 threads) a burst of sign-ins took every core
// from the event loop. Niced workers take only the CPU the event loop leaves, and sign-ins alone still
// use every core (docs/architecture.md, "Measurements behind the code").
//
// Like libuv's own pool this is one pool per process: it holds no application state, starts its
// workers on the first hash and lets them exit when idle, and never keeps the process alive.
//
// Hashes are bounded, since each costs every other caller time: at most MAX_WAITING wait for a worker,
// and one client (its network address) has at most PER_CLIENT hashed or waiting at once; past either a
// 429. Without the bounds, a flood of sign-ins with unknown identities from one address queued a hash
// each, and a real sign-in waited behind all of them.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../errors.js';

/** Hashes waiting for a worker, whoever asked: at 40 ms a hash on two cores, about a second of work. */
export const MAX_WAITING_HASHES = 64;
/**
 * Hashes one client address may have running or waiting at once: a script on this machine signing in
 * ten users at once (the bench does) still fits, and a flood from one address holds up others by at
 * most this many hashes (about 0.3 s on two cores).
 */
export const PER_CLIENT_HASHES = 16;

/**
 * How long one hash may hold a worker. The bounded parameters (passwords.ts, HASH_LIMITS) take at
 * most about a second; a job past this limit is stopped: its worker is terminated and replaced, and
 * the caller gets HashJobStopped (a failed sign-in), so no stored hash can pin the pool.
 */
export const MAX_HASH_JOB_MS = 10_000;

const tooMany = () => new ApiError(429, 'Too Many Requests.');

/** A hash the pool stopped at its time limit (its worker was replaced). */
export class HashJobStopped extends Error {
  constructor(ms: number) {
    super(`password hash stopped after ${ms} ms`);
  }
}

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  maxmem: number;
}

type Message =
  | { kind: 'scrypt'; password: string; salt: Uint8Array; keylen: number; options: ScryptParams }
  /** PocketBase's bcrypt hashes (data moved from PocketBase), checked with bcryptjs loaded from `module`. */
  | { kind: 'bcrypt'; password: string; hash: string; module: string };

interface Job {
  message: Message;
  client: string;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

type Reply = { key: Uint8Array } | { match: boolean } | { error: string };

// Inline (eval) so that bundles (the Electron main process) need no extra file. Linux applies a nice
// value to the calling thread only; elsewhere setPriority(0) would lower the whole process, so skip.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
if (process.platform === 'linux') {
  try { require('node:os').setPriority(0, 19); } catch {}
}
parentPort.on('message', (m) => {
  try {
    if (m.kind === 'bcrypt') parentPort.postMessage({ match: require(m.module).compareSync(m.password, m.hash) });
    else parentPort.postMessage({ key: scryptSync(m.password, m.salt, m.keylen, m.options) });
  } catch (e) {
    parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
});
`;

export class ScryptPool {
  private idle: Worker[] = [];
  private busy = new Map<Worker, Job>();
  private queue: Job[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  /** Hashes running or waiting per client key. */
  private perClient = new Map<string, number>();
  /** Workers that have started (a job's time limit counts from then). */
  private online = new Set<Worker>();

  constructor(
    private readonly size = Math.max(1, Math.min(4, availableParallelism())),
    private readonly idleMs = 30_000,
    private readonly maxWaiting = MAX_WAITING_HASHES,
    private readonly maxPerClient = PER_CLIENT_HASHES,
    private readonly jobMs = MAX_HASH_JOB_MS,
  ) {}

  /** `client` names who asked (see clientKey); '' is the server itself, bounded only by the queue. */
  async derive(password: string, salt: Uint8Array, keylen: number, options: ScryptParams, client = ''): Promise<Buffer> {
    const reply = await this.run({ kind: 'scrypt', password, salt, keylen, options }, client);
    if (!('key' in reply)) throw new Error('scrypt worker answered without a key');
    return Buffer.from(reply.key);
  }

  /** bcrypt's compare on a worker (bcryptjs is pure JavaScript: ~70 ms of the loop a check at cost 10), bounded like a hash. */
  async bcryptCompare(password: string, hash: string, module: string, client = ''): Promise<boolean> {
    const reply = await this.run({ kind: 'bcrypt', password, hash, module }, client);
    return 'match' in reply && reply.match;
  }

  private run(message: Message, client: string): Promise<Reply> {
    const mine = this.perClient.get(client) ?? 0;
    if (this.queue.length >= this.maxWaiting || (client !== '' && mine >= this.maxPerClient)) return Promise.reject(tooMany());
    if (client !== '') this.perClient.set(client, mine + 1);
    const done = () => {
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
    return new Promise((resolve, reject) => {
      const settle = <T>(f: (v: T) => void) => (v: T) => {
        if (client !== '') done();
        f(v);
      };
      this.queue.push({ message, client, resolve: settle(resolve), reject: settle(reject) });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : null);
      if (worker === null) return;
      const job = this.queue.shift() as Job;
      this.busy.set(worker, job);
      if (this.online.has(worker)) this.armJobTimer(worker, job);
      worker.postMessage(job.message);
    }
    this.armIdleTimer();
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    // a new worker's start-up is not its job's cost: the job's time counts from when it runs
    worker.once('online', () => {
      this.online.add(worker);
      const job = this.busy.get(worker);
      if (job && job.timer === undefined) this.armJobTimer(worker, job);
    });
    worker.on('message', (reply: Reply) => {
      const job = this.busy.get(worker);
      if (job === undefined) return; // a stopped worker's late answer
      clearTimeout(job.timer);
      this.busy.delete(worker);
      this.idle.push(worker);
      if (job) {
        if ('error' in reply) job.reject(new Error(reply.error));
        else job.resolve(reply);
      }
      this.dispatch();
    });
    const lost = (error: Error) => {
      this.online.delete(worker);
      const job = this.busy.get(worker);
      clearTimeout(job?.timer);
      this.busy.delete(worker);
      this.idle = this.idle.filter((w) => w !== worker);
      job?.reject(error);
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`scrypt worker exited (code ${code})`)));
    return worker;
  }

  private armJobTimer(worker: Worker, job: Job): void {
    job.timer = setTimeout(() => this.stop(worker, job), this.jobMs);
    job.timer.unref();
  }

  /** A job past its time limit: its worker is terminated (a replacement starts with the next job) and the caller told. */
  private stop(worker: Worker, job: Job): void {
    if (this.busy.get(worker) !== job) return;
    this.busy.delete(worker);
    this.online.delete(worker);
    void worker.terminate();
    job.reject(new HashJobStopped(this.jobMs));
    this.dispatch();
  }

  /** Idle workers exit once nothing has been hashed for `idleMs`. */
  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.idle.length === 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.busy.size > 0) return;
      for (const worker of this.idle.splice(0)) void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/**
 * Who a hash is charged to: the client's network address, IPv6 addresses by their /64 (one host
 * commonly holds a whole /64, and could otherwise rotate through it), IPv4-mapped ones as IPv4.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === '') return '';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1];
  if (!address.includes(':')) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
