// The bench's phases: the side-by-side cases on 10,000 posts (Deskbase and the ceiling), sign-in
// under load, and the scale figures at 1k and 100k posts.
import { join } from 'node:path';
import { captureRoutes, httpCases, type CaseId, type HttpCase } from './cases.js';
import { spawnChild, type Child } from './children.js';
import { figures, pool, runLoad, type LoadResult, type LoadRun } from './load.js';
import type { MemoryInfo, SeedInfo, StartInfo } from './protocol.js';

export interface Settings {
  connections: number;
  seconds: number;
  /** Side-by-side cases alternate Deskbase and the ceiling in this many slices (shared background load). */
  rounds: number;
  warmupSeconds: number;
  mainPosts: number;
  smallPosts: number;
  largePosts: number;
  users: number;
  profileDir: string | null;
  log: (line: string) => void;
}

export interface SideBySide {
  label: string;
  posts: number;
  deskbase: LoadResult;
  ceiling: LoadResult;
  ratio: number;
}

export interface SignInUnderLoad {
  signIn: LoadResult;
  view: LoadResult;
  idleViewP99: number;
  factor: number;
}

export interface ScalePoint {
  posts: number;
  list: LoadResult;
  listFilter: LoadResult;
  create: LoadResult;
}

export interface LargeFigures extends ScalePoint {
  seedMs: number;
  start: StartInfo;
  /** fork() to the child's server listening, seen from the runner (Node + tsx start included). */
  spawnToReadyMs: number;
  memoryAfterLoad: MemoryInfo;
  checkpointMs: number;
}

const MAIN_CASES: CaseId[] = ['view', 'list', 'listSkipTotal', 'listFilter', 'listExpand', 'create', 'signIn'];

function load(s: Settings, url: string, c: HttpCase, seconds = s.seconds, connections = s.connections): Promise<LoadRun> {
  return runLoad({ url, method: c.method, paths: c.paths, bodies: c.bodies, headers: c.headers, connections, seconds });
}

/** A short run first (JIT, statement caches, connections), then the measured one. */
async function measure(s: Settings, url: string, c: HttpCase, connections = s.connections): Promise<LoadResult> {
  if (s.warmupSeconds > 0) await load(s, url, c, s.warmupSeconds, connections);
  return figures(await load(s, url, c, s.seconds, connections));
}

/**
 * Deskbase and the ceiling on the same case, in alternating slices: whatever else the machine does
 * during the run weighs on both alike. Each side is warmed up first; the slices are pooled.
 */
async function sideBySide(s: Settings, deskbaseUrl: string, ceilingUrl: string, c: HttpCase): Promise<{ deskbase: LoadResult; ceiling: LoadResult }> {
  if (s.warmupSeconds > 0) {
    await load(s, deskbaseUrl, c, s.warmupSeconds);
    await load(s, ceilingUrl, c, s.warmupSeconds);
  }
  const d: LoadRun[] = [];
  const k: LoadRun[] = [];
  const slice = s.seconds / s.rounds;
  for (let round = 0; round < s.rounds; round++) {
    d.push(await load(s, deskbaseUrl, c, slice));
    k.push(await load(s, ceilingUrl, c, slice));
  }
  return { deskbase: figures(pool(d)), ceiling: figures(pool(k)) };
}

export const fmtResult = (r: LoadResult): string =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx > 0 ? ` (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`;

export async function runMain(s: Settings, dir: string, children: Set<Child>): Promise<{ cases: Record<CaseId, SideBySide>; signInUnderLoad: SignInUnderLoad }> {
  const deskbase = track(children, spawnChild(s.profileDir));
  const info = await deskbase.call<SeedInfo>({ op: 'seed', dir: join(dir, 'main'), posts: s.mainPosts, users: s.users }, 300_000);
  s.log(`seeded ${info.postsCount} posts in ${info.seedMs.toFixed(0)} ms`);
  const cases = httpCases(info);
  const routes = await captureRoutes(info.url, MAIN_CASES.map((id) => cases[id]));
  const ceiling = track(children, spawnChild(null));
  const { url: ceilingUrl } = await ceiling.call<{ url: string }>({ op: 'ceiling', routes });
  const out = {} as Record<CaseId, SideBySide>;
  for (const id of MAIN_CASES) {
    const c = cases[id];
    const { deskbase: d, ceiling: k } = await sideBySide(s, info.url, ceilingUrl, c);
    out[id] = { label: c.label, posts: info.postsCount, deskbase: d, ceiling: k, ratio: d.rps / k.rps };
    s.log(`${c.label}: Deskbase ${fmtResult(d)} | ceiling ${fmtResult(k)} | ratio ${(100 * d.rps / k.rps).toFixed(0)}%`);
  }
  // views alone, then views and sign-ins at once (each with its own connections) on the same server
  const idleViewP99 = figures(await load(s, info.url, cases.view)).p99;
  const [signInRun, viewRun] = await Promise.all([load(s, info.url, cases.signIn), load(s, info.url, cases.view)]);
  const signIn = figures(signInRun);
  const view = figures(viewRun);
  s.log(`views while signing in: ${fmtResult(view)}; sign-ins ${fmtResult(signIn)}`);
  await stop(children, ceiling);
  await stop(children, deskbase);
  return { cases: out, signInUnderLoad: { signIn, view, idleViewP99, factor: view.p99 / idleViewP99 } };
}

/** Latencies of lists on one connection (no queueing behind other requests); creates on all of them. */
async function scaleLoads(s: Settings, info: { url: string }, cases: Record<CaseId, HttpCase>): Promise<Omit<ScalePoint, 'posts'>> {
  const list = await measure(s, info.url, cases.list, 1);
  const listFilter = await measure(s, info.url, cases.listFilter, 1);
  const create = await measure(s, info.url, cases.create);
  return { list, listFilter, create };
}

export async function runSmall(s: Settings, dir: string, children: Set<Child>): Promise<ScalePoint> {
  const child = track(children, spawnChild(s.profileDir));
  const info = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'small'), posts: s.smallPosts, users: s.users }, 300_000);
  const point = { posts: info.postsCount, ...(await scaleLoads(s, info, httpCases(info))) };
  s.log(`${info.postsCount} posts: list ${fmtResult(point.list)}; filter ${fmtResult(point.listFilter)}; create ${fmtResult(point.create)}`);
  await stop(children, child);
  return point;
}

export async function runLarge(s: Settings, dir: string, children: Set<Child>): Promise<LargeFigures> {
  const folder = join(dir, 'large');
  const seeder = track(children, spawnChild(null));
  const info = await seeder.call<SeedInfo>({ op: 'seed', dir: folder, posts: s.largePosts, users: s.users }, 300_000);
  s.log(`seeded ${info.postsCount} posts in ${info.seedMs.toFixed(0)} ms`);
  await stop(children, seeder);

  const t0 = performance.now();
  const child = track(children, spawnChild(s.profileDir));
  const start = await child.call<StartInfo>({ op: 'open', dir: folder }, 120_000);
  const spawnToReadyMs = performance.now() - t0;
  s.log(`opened ${start.postsCount} posts: startServer ${start.startMs.toFixed(0)} ms, RSS ${(start.rssBytes / 2 ** 20).toFixed(0)} MB`);
  const loads = await scaleLoads(s, { url: start.url }, httpCases({ ...info, url: start.url }));
  const memoryAfterLoad = await child.call<MemoryInfo>({ op: 'memory' });
  const { ms: checkpointMs } = await child.call<{ ms: number }>({ op: 'checkpoint' }, 120_000);
  s.log(`${start.postsCount} posts: list ${fmtResult(loads.list)}; filter ${fmtResult(loads.listFilter)}; create ${fmtResult(loads.create)}; checkpoint ${checkpointMs.toFixed(0)} ms`);
  await stop(children, child);
  return { posts: start.postsCount, ...loads, seedMs: info.seedMs, start, spawnToReadyMs, memoryAfterLoad, checkpointMs };
}

function track(children: Set<Child>, child: Child): Child {
  children.add(child);
  return child;
}

async function stop(children: Set<Child>, child: Child): Promise<void> {
  await child.stop();
  children.delete(child);
}
