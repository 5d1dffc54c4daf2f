// The bench's main phase: every case on 10,000 posts, Deskbase beside the ceiling, then sign-ins
// under load; and the helpers the scale phase (scale.ts) shares.
import { join } from 'node:path';
import { captureRoutes, httpCases, type CaseId, type HttpCase } from './cases.js';
import { spawnChild, stop, type Child } from './children.js';
import { figures, pool, runLoad, type LoadResult, type LoadRun } from './load.js';
import type { SeedInfo } from './protocol.js';
import { runSaturated, type SaturatedFigure } from './saturated.js';
import { SNAPSHOT_FILE } from '../server/store/snapshot.js';

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

/** The cases run on the main data set beside the ceiling (the others run in the scale phase). */
export type MainCaseId = Exclude<CaseId, 'listSortTitle' | 'listDeepPage'>;

export interface SideBySide {
  label: string;
  posts: number;
  deskbase: Measured;
  ceiling: Measured;
  ratio: number;
}

export interface SignInUnderLoad {
  signIn: LoadResult;
  view: LoadResult;
  idleViewP99: number;
  factor: number;
}

/** The same list with and without `expand=author`, alternating on one server (their ratio is a target). */
export interface ExpandCost {
  list: Measured;
  expand: Measured;
  ratio: number;
}

export interface Target {
  url: string;
  c: HttpCase;
  /** The server's process, asked for its CPU time around each slice. */
  child: Child;
}

/** A load result with the server's CPU time (user + system, all threads) per 2xx response. */
export interface Measured extends LoadResult {
  cpuUsPerRequest: number;
}

interface CpuTime {
  user: number;
  system: number;
}

async function loadWithCpu(s: Settings, t: Target, seconds: number, connections: number): Promise<{ run: LoadRun; cpuUs: number }> {
  const before = await t.child.call<CpuTime>({ op: 'cpu' });
  const run = await load(s, t.url, t.c, seconds, connections);
  const after = await t.child.call<CpuTime>({ op: 'cpu' });
  return { run, cpuUs: after.user + after.system - before.user - before.system };
}

const MAIN_CASES: MainCaseId[] = ['view', 'viewComputed', 'list', 'listComputed', 'listSkipTotal', 'listFilter', 'listExpand', 'listExpandMulti', 'create', 'signIn'];

export function load(s: Settings, url: string, c: HttpCase, seconds = s.seconds, connections = s.connections): Promise<LoadRun> {
  return runLoad({ url, method: c.method, paths: c.paths, methods: c.methods, bodies: c.bodies, headers: c.headers, computed: c.computed, connections, seconds });
}

/**
 * Two targets in alternating slices (Deskbase and the ceiling, or a small and a large data set):
 * whatever else the machine does during the run weighs on both alike. Each is warmed up first; the
 * slices are pooled.
 */
export async function alternate(s: Settings, a: Target, b: Target, connections = s.connections): Promise<[Measured, Measured]> {
  if (s.warmupSeconds > 0) {
    await load(s, a.url, a.c, s.warmupSeconds, connections);
    await load(s, b.url, b.c, s.warmupSeconds, connections);
  }
  const runs: [LoadRun[], LoadRun[]] = [[], []];
  const cpu = [0, 0];
  const slice = s.seconds / s.rounds;
  for (let round = 0; round < s.rounds; round++) {
    for (const [i, t] of [a, b].entries()) {
      const { run, cpuUs } = await loadWithCpu(s, t, slice, connections);
      runs[i].push(run);
      cpu[i] += cpuUs;
    }
  }
  const measured = (i: number): Measured => {
    const result = figures(pool(runs[i]));
    return { ...result, cpuUsPerRequest: cpu[i] / Math.max(1, result.ok) };
  };
  return [measured(0), measured(1)];
}

export const fmtResult = (r: LoadResult): string =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx > 0 ? ` (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`;

export interface MainResults {
  cases: Record<MainCaseId, SideBySide>;
  expandCost: ExpandCost;
  signInUnderLoad: SignInUnderLoad;
  /** The read cases on the machine as it is, then with every core held by busy processes. */
  saturated: SaturatedFigure[];
  /**
   * The computed reads' floor: a bare node:http server computing the same answers on sql.js from the
   * same (checkpointed) database, no rules, logs or sessions (bench/floor.ts), beside the ceiling.
   */
  floor: Record<'viewComputed' | 'listComputed', SideBySide>;
}

export async function runMain(s: Settings, dir: string, children: Set<Child>): Promise<MainResults> {
  const deskbase = track(children, spawnChild(s.profileDir));
  const info = await deskbase.call<SeedInfo>({ op: 'seed', dir: join(dir, 'main'), posts: s.mainPosts, users: s.users }, 300_000);
  s.log(`seeded ${info.postsCount} posts in ${info.seedMs.toFixed(0)} ms`);
  const cases = httpCases(info);
  const routes = await captureRoutes(info.url, MAIN_CASES.map((id) => cases[id]));
  const ceiling = track(children, spawnChild(null));
  const { url: ceilingUrl } = await ceiling.call<{ url: string }>({ op: 'ceiling', routes });
  const out = {} as Record<MainCaseId, SideBySide>;
  for (const id of MAIN_CASES) {
    const c = cases[id];
    const [d, k] = await alternate(s, { url: info.url, c, child: deskbase }, { url: ceilingUrl, c, child: ceiling });
    out[id] = { label: c.label, posts: info.postsCount, deskbase: d, ceiling: k, ratio: d.rps / k.rps };
    s.log(`${c.label}: Deskbase ${fmtResult(d)} | ceiling ${fmtResult(k)} | ratio ${(100 * d.rps / k.rps).toFixed(0)}%`);
  }
  // what a computed read on sql.js reaches at best, measured against the ceiling as Deskbase is
  await deskbase.call({ op: 'checkpoint' });
  const bare = track(children, spawnChild(null));
  const { url: floorUrl } = await bare.call<{ url: string }>({ op: 'floor', file: join(dir, 'main', SNAPSHOT_FILE) });
  const floor = {} as MainResults['floor'];
  for (const id of ['viewComputed', 'listComputed'] as const) {
    const c = cases[id];
    const [f, k] = await alternate(s, { url: floorUrl, c, child: bare }, { url: ceilingUrl, c, child: ceiling });
    floor[id] = { label: `${c.label}: the floor (bare node:http + sql.js)`, posts: info.postsCount, deskbase: f, ceiling: k, ratio: f.rps / k.rps };
    s.log(`${floor[id].label}: ${fmtResult(f)} | ceiling ${fmtResult(k)} | ratio ${(100 * f.rps / k.rps).toFixed(0)}%`);
  }
  await stop(children, bare);
  // both were warmed up as cases above; measured against each other, not at different times
  const [list, expand] = await alternate({ ...s, warmupSeconds: 0 }, { url: info.url, c: cases.listComputed, child: deskbase }, { url: info.url, c: cases.listExpand, child: deskbase });
  const expandCost = { list, expand, ratio: expand.rps / list.rps };
  s.log(`list ${fmtResult(list)} | same with expand=author ${fmtResult(expand)} | ratio ${(100 * expandCost.ratio).toFixed(0)}%`);
  // views alone, then views and sign-ins at once (each with its own connections) on the same server
  const idleViewP99 = figures(await load(s, info.url, cases.view)).p99;
  const [signInRun, viewRun] = await Promise.all([load(s, info.url, cases.signIn), load(s, info.url, cases.view)]);
  const signIn = figures(signInRun);
  const view = figures(viewRun);
  s.log(`views while signing in: ${fmtResult(view)}; sign-ins ${fmtResult(signIn)}`);
  await stop(children, ceiling);
  const saturated = await runSaturated(s, info.url, cases);
  await stop(children, deskbase);
  return { cases: out, expandCost, signInUnderLoad: { signIn, view, idleViewP99, factor: view.p99 / idleViewP99 }, saturated, floor };
}

export function track(children: Set<Child>, child: Child): Child {
  children.add(child);
  return child;
}
