// The scale phase: a small and a large data set served side by side (each in its own child process),
// compared in alternating slices; start-up, memory and checkpoint figures of the large one.
import { join } from 'node:path';
import { httpCases, type CaseId, type HttpCase } from './cases.js';
import { spawnChild, stop, type Child } from './children.js';
import { alternate, fmtResult, track, type Measured, type Settings } from './phases.js';
import type { MemoryInfo, SeedInfo, StartInfo } from './protocol.js';

export interface ScalePoint {
  posts: number;
  list: Measured;
  listFilter: Measured;
  listSortTitle: Measured;
  /** Nine tenths of the way through the default order (page 3,000 of 100k posts). */
  listDeepPage: Measured;
  create: Measured;
  /** Journal entries per fdatasync during the create run (group commit). */
  entriesPerSync: number;
}

export interface LargeFigures extends ScalePoint {
  seedMs: number;
  start: StartInfo;
  /** fork() to the child's server listening, seen from the runner (Node + tsx start included). */
  spawnToReadyMs: number;
  memoryAfterLoad: MemoryInfo;
  checkpointMs: number;
}

interface StoreCounters {
  entries: number;
  syncs: number;
}

interface Side {
  child: Child;
  url: string;
  cases: Record<CaseId, HttpCase>;
}

const target = (side: Side, id: CaseId) => ({ url: side.url, c: side.cases[id], child: side.child });

async function seedSmall(s: Settings, dir: string, children: Set<Child>): Promise<Side & { posts: number }> {
  const child = track(children, spawnChild(s.profileDir));
  const info = await child.call<SeedInfo>({ op: 'seed', dir: join(dir, 'small'), posts: s.smallPosts, users: s.users }, 300_000);
  return { child, url: info.url, cases: httpCases(info), posts: info.postsCount };
}

/** Seeds the large folder in a throwaway process, then opens it in a fresh one (start-up figures). */
async function openLarge(s: Settings, dir: string, children: Set<Child>) {
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
  const side: Side = { child, url: start.url, cases: httpCases({ ...info, url: start.url }) };
  return { side, seedMs: info.seedMs, start, spawnToReadyMs };
}

async function entriesPerSync(sides: Side[], run: () => Promise<[Measured, Measured]>): Promise<[Measured, Measured, number[]]> {
  const before = await Promise.all(sides.map((x) => x.child.call<StoreCounters>({ op: 'stats' })));
  const [a, b] = await run();
  const after = await Promise.all(sides.map((x) => x.child.call<StoreCounters>({ op: 'stats' })));
  const ratios = after.map((c, i) => (c.entries - before[i].entries) / Math.max(1, c.syncs - before[i].syncs));
  return [a, b, ratios];
}

/**
 * Lists on one connection (their latency, not queueing behind other requests); creates on all of
 * them. The small data set grows by the creates of its slices: "1k" is where it starts.
 */
export async function runScale(s: Settings, dir: string, children: Set<Child>): Promise<{ small: ScalePoint; large: LargeFigures }> {
  const small = await seedSmall(s, dir, children);
  const large = await openLarge(s, dir, children);
  // latencies on one connection need fewer seconds than rates (the run stays within about 3 minutes)
  const short = { ...s, seconds: Math.min(s.seconds, 3) };
  const [listS, listL] = await alternate(short, target(small, 'listComputed'), target(large.side, 'listComputed'), 1);
  const [filterS, filterL] = await alternate(short, target(small, 'listFilter'), target(large.side, 'listFilter'), 1);
  const [titleS, titleL] = await alternate(short, target(small, 'listSortTitle'), target(large.side, 'listSortTitle'), 1);
  const [deepS, deepL] = await alternate(short, target(small, 'listDeepPage'), target(large.side, 'listDeepPage'), 1);
  const [createS, createL, perSync] = await entriesPerSync([small, large.side], () =>
    alternate(s, target(small, 'create'), target(large.side, 'create')));
  const memoryAfterLoad = await large.side.child.call<MemoryInfo>({ op: 'memory' });
  const { ms: checkpointMs } = await large.side.child.call<{ ms: number }>({ op: 'checkpoint' }, 120_000);
  const largePosts = await large.side.child.call<number>({ op: 'count' });
  for (const [label, list, filter, title, deep, create] of [
    ['small', listS, filterS, titleS, deepS, createS], ['large', listL, filterL, titleL, deepL, createL],
  ] as const) {
    s.log(`${label}: list ${fmtResult(list)}; filter ${fmtResult(filter)}; sort=title ${fmtResult(title)}; deep page ${fmtResult(deep)}; create ${fmtResult(create)}`);
  }
  s.log(`checkpoint of ${largePosts} posts: ${checkpointMs.toFixed(0)} ms`);
  await stop(children, small.child);
  await stop(children, large.side.child);
  return {
    small: { posts: small.posts, list: listS, listFilter: filterS, listSortTitle: titleS, listDeepPage: deepS, create: createS, entriesPerSync: perSync[0] },
    large: {
      posts: large.start.postsCount, list: listL, listFilter: filterL, listSortTitle: titleL, listDeepPage: deepL, create: createL,
      entriesPerSync: perSync[1],
      seedMs: large.seedMs, start: large.start, spawnToReadyMs: large.spawnToReadyMs, memoryAfterLoad, checkpointMs,
    },
  };
}
