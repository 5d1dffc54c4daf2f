// scrypt (and bcrypt, for hashes moved from PocketBase) on a few worker threads. A sign-in costs tens
// of milliseconds of CPU; on libuv's pool (4 threads) a burst of sign-ins took every core from the event
// loop. All but one core's worth of workers run at the process's own priority and take the jobs first;
// the rest (on two cores, the second worker) run at nice 19 on Linux, so a flood of sign-ins leaves the
// event loop a core of its own, and sign-ins alone still use every core. A sign-in while other processes
// hold every core gets its fair share of one (at nice 19 it got 1.4%: 1-7 s a sign-in at load 17).
// docs/architecture.md, "Measurements behind the code".
//
// The workers are server/worker-pool.ts's: started on the first hash, exiting when idle, never keeping
// the process alive. createCore makes one pool per server (core/index.ts) and hands it to passwords.ts.
//
// Hashes are bounded, since each costs every other caller time: at most MAX_WAITING wait for a worker,
// and one client (its network address) has at most PER_CLIENT hashed or waiting at once; past either a
// 429. Without the bounds, a flood of sign-ins with unknown identities from one address queued a hash
// each, and a real sign-in waited behind all of them.
import { availableParallelism } from 'node:os';
import { ApiError } from '../errors.js';
import { WorkerPool, type WorkerPoolOptions } from '../worker-pool.js';

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

type Reply = { key: Uint8Array } | { match: boolean } | { error: string };

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    if (m.kind === 'bcrypt') parentPort.postMessage({ match: require(m.module).compareSync(m.password, m.hash) });
    else parentPort.postMessage({ key: scryptSync(m.password, m.salt, m.keylen, m.options) });
  } catch (e) {
    parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
});
`;

/**
 * The pool's bounds and priorities (worker-pool.ts); by default the cores (at most 4), the constants
 * above, and all workers but one core's worth at the normal priority, the rest at nice 19.
 */
export type ScryptPoolOptions = Partial<Pick<WorkerPoolOptions, 'size' | 'idleMs' | 'maxWaiting' | 'maxPerClient' | 'jobMs' | 'nice' | 'normalWorkers'>>;

/** Password hashes on worker threads (one core's worth niced), bounded per client and in total, each job under MAX_HASH_JOB_MS. */
export class ScryptPool {
  private readonly pool: WorkerPool<Message, Reply>;

  constructor(options: ScryptPoolOptions = {}) {
    this.pool = new WorkerPool({
      name: 'scrypt',
      source: WORKER_SOURCE,
      nice: options.nice ?? 19,
      normalWorkers: options.normalWorkers ?? availableParallelism() - 1,
      size: options.size ?? Math.max(1, Math.min(4, availableParallelism())),
      idleMs: options.idleMs ?? 30_000,
      maxWaiting: options.maxWaiting ?? MAX_WAITING_HASHES,
      maxPerClient: options.maxPerClient ?? PER_CLIENT_HASHES,
      jobMs: options.jobMs ?? MAX_HASH_JOB_MS,
      tooMany,
      stopped: (ms) => new HashJobStopped(ms),
    });
  }

  /** `client` names who asked (http/client-key.ts); '' is the server itself, bounded only by the queue. */
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

  private async run(message: Message, client: string): Promise<Exclude<Reply, { error: string }>> {
    const reply = await this.pool.run(message, client);
    if ('error' in reply) throw new Error(reply.error);
    return reply;
  }
}
