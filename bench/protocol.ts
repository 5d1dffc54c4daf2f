// Messages between the bench runner (load generator) and its child processes (the servers under test).
// Requests carry an id; the child answers each with `{ id, ok, result }` or `{ id, ok: false, error }`.
import type { FloorRates } from './realtime-floor.js';

/** A captured HTTP answer the ceiling server replays from memory. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a seeded Deskbase instance tells the runner. */
export interface SeedInfo {
  url: string;
  postsCount: number;
  /** Ids of posts the view case rotates through. */
  viewIds: string[];
  userIds: string[];
  userEmails: string[];
  userPassword: string;
  /** A signed-in user's bearer token (create case). */
  userToken: string;
  /** A word that appears in some titles (the unindexed `~` filter). */
  filterWord: string;
  /** Milliseconds spent inserting the posts. */
  seedMs: number;
}

export interface StartInfo {
  url: string;
  /** startServer() on the existing folder, measured inside the child. */
  startMs: number;
  /** Process start (performance.timeOrigin) to listening, measured inside the child. */
  sinceProcessStartMs: number;
  rssBytes: number;
  postsCount: number;
}

export interface MemoryInfo {
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  /** The rest is for bench/memory.ts (absent from older commits' children). */
  heapTotalBytes?: number;
  arrayBuffersBytes?: number;
  /** Each WebAssembly memory instantiated in the server's thread (sql.js: one module, every database in it). */
  wasmBytes?: number[];
  /** /proc/self/smaps_rollup, kB by field (Linux). */
  smaps?: Record<string, number>;
  /** With BENCH_MAPS=1: the mappings holding most of RSS. */
  maps?: string[];
}

export type ChildRequest =
  /** `db`: a team server on that PostgreSQL database (`dir` then holds its files only). */
  /** `hooksDir`: the server runs that pb_hooks folder (bench/hooks.ts); none otherwise. */
  | { op: 'seed'; dir: string; posts: number; users: number; db?: string; hooksDir?: string }
  | { op: 'open'; dir: string; db?: string }
  | { op: 'ceiling'; routes: Record<string, CapturedResponse> }
  | { op: 'floor'; file: string }
  /** The realtime floor (bench/realtime-floor.ts): serve, then write rounds at the rates given (FloorRun). */
  | { op: 'realtimeFloor' }
  | { op: 'realtimeFloorRun'; rates: FloorRates }
  | { op: 'checkpoint' }
  | { op: 'count' }
  | { op: 'stats' }
  | { op: 'cpu' }
  /** CPU µs of the main thread and of the others, user and system (Linux; null elsewhere). */
  | { op: 'threadCpu' }
  /** The event loop's delay and utilization from `loopStart` to `loopStop` (LoopFigures). */
  | { op: 'loopStart' }
  | { op: 'loopStop' }
  /** The realtime trace (server/core/realtime/trace.ts) on, then off with its entries (RealtimeTraceEntries; null where there is none). */
  | { op: 'traceStart' }
  | { op: 'traceStop' }
  | { op: 'profileStart' }
  | { op: 'profileStop'; file: string }
  /** `gc`: a full garbage collection first (bench/memory.ts: what is held, not what is not yet collected). */
  | { op: 'memory'; gc?: boolean }
  | { op: 'close' };

/** What the server's realtime trace noted (server/core/realtime/trace.ts), flattened as there. */
export interface RealtimeTraceEntries {
  events: number[];
  rounds: number[];
  /** Per round, the loop's own thread's CPU µs (absent from older commits' traces). */
  roundThreads?: number[];
}

/** The realtime phase's subscriber process (bench/subscribers.ts). */
export type SubscribersRequest =
  /** `count` SSE clients subscribed to `topic`, their connections spread over the local `addresses`. */
  | { op: 'attach'; url: string; topic: string; count: number; addresses: string[] }
  | { op: 'arm' }
  | { op: 'reached'; timeoutMs: number }
  | { op: 'detach' }
  /** This process's CPU time (process.cpuUsage()): what reading the streams costs the machine. */
  | { op: 'cpu' }
  | { op: 'loopStart' }
  | { op: 'loopStop' }
  /** From now on each event's time to its last subscriber is kept; `tracked` stops and answers them. */
  | { op: 'track' }
  | { op: 'tracked' }
  | { op: 'close' };

/** A process's event loop over a window: how late its timers ran (ms) and how busy it was (0-1). */
export interface LoopFigures {
  delayP50: number;
  delayP99: number;
  delayMax: number;
  utilization: number;
}

export interface ChildEnvelope {
  id: number;
  request: ChildRequest | SubscribersRequest;
}

export type ChildReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** Routes of the ceiling server are keyed `METHOD path` (path with its query string). */
export const routeKey = (method: string, path: string): string => `${method} ${path}`;
