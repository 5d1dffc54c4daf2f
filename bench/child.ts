// A server under test, in its own process (the load generator runs in the parent, so the two do not
// share an event loop). Driven over IPC by bench/run.ts: seed or open a Deskbase data folder, or serve
// captured responses as the ceiling; report start-up, memory and checkpoint figures.
import type { Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pathToFileURL } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { startServer as startFromSources, type RunningServer } from '../server/index.js';
import { startCeiling } from './ceiling.js';
import { startFloor } from './floor.js';
import { startRealtimeFloor, type FloorRates, type FloorRun } from './realtime-floor.js';
import { WindowProfiler } from './inspector-profile.js';
import { LoopWatch } from './loop-watch.js';
import type { ChildEnvelope, ChildReply, ChildRequest, MemoryInfo, StartInfo } from './protocol.js';
import { seed } from './seed.js';

interface ChildState {
  deskbase: RunningServer | null;
  /** A bare server of this child: the ceiling, or the floor (bench/floor.ts). */
  ceiling: Server | null;
  /** The realtime floor's rounds (bench/realtime-floor.ts), once it serves. */
  realtimeFloor: ((rates: FloorRates) => Promise<FloorRun>) | null;
  profiler: WindowProfiler;
}

/** Every WebAssembly memory this thread instantiates (sql.js's), to report its size. */
const wasmMemories: WebAssembly.Memory[] = [];
const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (...args: unknown[]) => Promise<unknown>;
(WebAssembly as { instantiate: unknown }).instantiate = async (...args: unknown[]) => {
  const result = (await instantiate(...args)) as { instance?: WebAssembly.Instance } | WebAssembly.Instance;
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  for (const value of Object.values(instance?.exports ?? {})) if (value instanceof WebAssembly.Memory) wasmMemories.push(value);
  return result;
};

function smapsRollup(): Record<string, number> | undefined {
  try {
    const out: Record<string, number> = {};
    for (const [, key, kb] of readFileSync('/proc/self/smaps_rollup', 'utf8').matchAll(/^(\w+):\s+(\d+) kB/gm)) out[key] = Number(kb);
    return out;
  } catch {
    return undefined;
  }
}

/** A full garbage collection, without starting the process with --expose-gc. */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The mappings holding most of RSS (kB), for bench/memory.ts's --maps. */
function topMappings(): string[] {
  const maps: { head: string; rss: number; size: number }[] = [];
  let current: { head: string; rss: number; size: number } | null = null;
  for (const row of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(row)) {
      current = { head: row, rss: 0, size: 0 };
      maps.push(current);
    } else if (current !== null && row.startsWith('Rss:')) current.rss = Number(/\d+/.exec(row)![0]);
    else if (current !== null && row.startsWith('Size:')) current.size = Number(/\d+/.exec(row)![0]);
  }
  const anon = maps.filter((m) => /\s0\s*$/.test(m.head) || m.head.endsWith('[heap]'));
  const sum = (list: typeof maps) => `${(list.reduce((n, m) => n + m.rss, 0) / 1024).toFixed(1)} MB in ${list.length}`;
  const classes = [
    `[heap] ${sum(anon.filter((m) => m.head.endsWith('[heap]')))}`,
    `anon <= 1 MiB ${sum(anon.filter((m) => !m.head.endsWith('[heap]') && m.size <= 1024))}`,
    `anon 1-64 MiB ${sum(anon.filter((m) => !m.head.endsWith('[heap]') && m.size > 1024 && m.size <= 65536))}`,
    `anon > 64 MiB ${sum(anon.filter((m) => !m.head.endsWith('[heap]') && m.size > 65536))}`,
  ];
  return [classes.join('; '), ...maps.sort((a, b) => b.rss - a.rss).slice(0, 6).map((m) => `${m.rss} kB of ${m.size} kB ${m.head}`)];
}

function memory(): MemoryInfo {
  const m = process.memoryUsage();
  return {
    rssBytes: m.rss, heapUsedBytes: m.heapUsed, externalBytes: m.external, heapTotalBytes: m.heapTotal, arrayBuffersBytes: m.arrayBuffers,
    wasmBytes: wasmMemories.map((w) => w.buffer.byteLength), smaps: smapsRollup(), maps: process.env.BENCH_MAPS === '1' ? topMappings() : undefined,
  };
}

/**
 * The server's code: its TypeScript sources through tsx (as `npm run serve`), or, with
 * DESKBASE_BENCH_BUNDLE naming `dist/server/index.mjs`, the esbuild bundle the desktop app runs.
 */
const startServer: typeof startFromSources = process.env.DESKBASE_BENCH_BUNDLE
  ? ((await import(pathToFileURL(process.env.DESKBASE_BENCH_BUNDLE).href)) as { startServer: typeof startFromSources }).startServer
  : startFromSources;

/** `db`: a team-server node on that PostgreSQL database (bench/team.ts), `dir` its files folder. */
async function start(dir: string, db?: string, hooksDir: string | null = null): Promise<RunningServer> {
  // imported only for the team-server phase: older commits driven by bench/ab.ts have no such store
  const openStore = db === undefined ? undefined : (await import('../server/store-postgres/store.js')).openPostgresStore;
  const team = openStore === undefined || db === undefined ? {} : { openStore: () => openStore({ url: db, dir }) };
  // the realtime phase holds 1,000 event streams open from one address, then 10,000 from five
  return startServer({ dir, host: '127.0.0.1', port: 0, strictPort: true, uiDir: null, log: () => undefined, limits: { perAddress: 2048, maxConnections: 12_000 }, hooksDir, ...team });
}

/** Awaited: this file also drives older commits (bench/ab.ts), whose store answered synchronously. */
async function postsCount(server: RunningServer): Promise<number> {
  return Number((await server.core.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "posts"'))?.n ?? 0);
}

/**
 * CPU µs of the main thread (the event loop) and of all other threads together (libuv's pool, V8's
 * helpers, workers), user and system, from /proc/self/task (Linux; clock ticks of 10 ms, so only a
 * window of seconds reads true); null elsewhere.
 */
function threadCpu(): { main: { user: number; system: number }; others: { user: number; system: number } } | null {
  try {
    const tick = 1e6 / 100; // USER_HZ
    const main = { user: 0, system: 0 };
    const others = { user: 0, system: 0 };
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const into = Number(tid) === process.pid ? main : others;
      into.user += Number(fields[11]) * tick;
      into.system += Number(fields[12]) * tick;
    }
    return { main, others };
  } catch {
    return null;
  }
}

function need(server: RunningServer | null): RunningServer {
  if (server === null) throw new Error('no Deskbase running in this child');
  return server;
}

async function handle(state: ChildState, request: ChildRequest): Promise<unknown> {
  switch (request.op) {
    case 'seed': {
      await mkdir(request.dir, { recursive: true });
      state.deskbase = await start(request.dir, request.db, request.hooksDir ?? null);
      return seed(state.deskbase, request.posts, request.users);
    }
    case 'open': {
      const t0 = performance.now();
      state.deskbase = await start(request.dir, request.db);
      const startMs = performance.now() - t0;
      const info: StartInfo = {
        url: state.deskbase.url, startMs, sinceProcessStartMs: performance.now(),
        rssBytes: process.memoryUsage().rss, postsCount: await postsCount(state.deskbase),
      };
      return info;
    }
    case 'ceiling': {
      const { server, url } = await startCeiling(request.routes);
      state.ceiling = server;
      return { url };
    }
    case 'floor': {
      const { server, url } = await startFloor(request.file);
      state.ceiling = server;
      return { url };
    }
    case 'realtimeFloor': {
      const { server, url, run } = await startRealtimeFloor();
      state.ceiling = server;
      state.realtimeFloor = run;
      return { url };
    }
    case 'realtimeFloorRun': {
      if (state.realtimeFloor === null) throw new Error('no realtime floor running in this child');
      return state.realtimeFloor(request.rates);
    }
    case 'checkpoint': {
      const store = need(state.deskbase).core.store;
      const t0 = performance.now();
      await store.checkpoint();
      return { ms: performance.now() - t0, checkpoints: store.stats().checkpoints };
    }
    case 'profileStart':
      return state.profiler.start();
    case 'profileStop':
      return state.profiler.stop(request.file);
    case 'cpu':
      return process.cpuUsage();
    case 'threadCpu':
      return threadCpu();
    case 'loopStart':
      return loop.start();
    case 'loopStop':
      return loop.stop();
    case 'traceStart': {
      // the realtime section's server-side delivery (server/core/realtime/trace.ts); older commits driven
      // by bench/ab.ts have none: false
      const broker = need(state.deskbase).core.realtime.broker as { trace?: unknown };
      const { RealtimeTrace } = await import('../server/core/realtime/trace.js').catch(() => ({ RealtimeTrace: null }));
      if (RealtimeTrace === null || !('trace' in broker)) return false;
      broker.trace = new RealtimeTrace();
      return true;
    }
    case 'traceStop': {
      const broker = need(state.deskbase).core.realtime.broker as { trace?: { events: number[]; rounds: number[]; roundThreads?: number[] } | null };
      const trace = broker.trace ?? null;
      if ('trace' in broker) broker.trace = null;
      return trace === null ? null : { events: trace.events, rounds: trace.rounds, roundThreads: trace.roundThreads };
    }
    case 'stats':
      return need(state.deskbase).core.store.stats();
    case 'count':
      return await postsCount(need(state.deskbase));
    case 'memory':
      if (request.gc === true) fullGc();
      return memory();
    case 'close': {
      await state.deskbase?.close();
      state.deskbase = null;
      const ceiling = state.ceiling;
      state.ceiling = null;
      if (ceiling) await new Promise<void>((resolve) => ceiling.close(() => resolve()).closeAllConnections());
      return null;
    }
  }
}

const loop = new LoopWatch();
const state: ChildState = { deskbase: null, ceiling: null, realtimeFloor: null, profiler: new WindowProfiler() };
process.on('message', (message: ChildEnvelope) => {
  handle(state, message.request as ChildRequest).then(
    (result) => process.send?.({ id: message.id, ok: true, result } satisfies ChildReply),
    (err: unknown) => process.send?.({ id: message.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies ChildReply),
  );
});
// the parent going away (Ctrl-C, a crash) ends the child too
process.on('disconnect', () => {
  void (async () => {
    await state.deskbase?.close().catch(() => undefined);
    process.exit(0);
  })();
});
