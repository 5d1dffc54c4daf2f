// A server under test, in its own process (the load generator runs in the parent, so the two do not
// share an event loop). Driven over IPC by bench/run.ts: seed or open a Deskbase data folder, or serve
// captured responses as the ceiling; report start-up, memory and checkpoint figures.
import type { Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { startServer, type RunningServer } from '../server/index.js';
import { startCeiling } from './ceiling.js';
import { WindowProfiler } from './inspector-profile.js';
import { LoopWatch } from './loop-watch.js';
import type { ChildEnvelope, ChildReply, ChildRequest, MemoryInfo, StartInfo } from './protocol.js';
import { seed } from './seed.js';

interface ChildState {
  deskbase: RunningServer | null;
  ceiling: Server | null;
  profiler: WindowProfiler;
}

function memory(): MemoryInfo {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, externalBytes: m.external };
}

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
    case 'loopStart':
      return loop.start();
    case 'loopStop':
      return loop.stop();
    case 'stats':
      return need(state.deskbase).core.store.stats();
    case 'count':
      return await postsCount(need(state.deskbase));
    case 'memory':
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
const state: ChildState = { deskbase: null, ceiling: null, profiler: new WindowProfiler() };
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
