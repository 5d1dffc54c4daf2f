// The bench's team-server phase (issue 25): the same cases (view, list, create) on the desktop engine,
// on one team-server node and on two nodes over one PostgreSQL, in one run. The PostgreSQL cluster is
// started here (scripts/postgres-cluster.ts, as the tests start theirs) with durable settings (fsync
// and synchronous_commit on, as the desktop syncs its journal before each answer), on loopback, on the
// same machine as everything else. Each server is its own child process; two nodes share the load
// (half the connections each, at once). The three alternate in slices, so background load weighs on
// all alike. Skipped, saying why, where PostgreSQL is not installed.
import { join } from 'node:path';
import { createDatabase, findPostgresBin, POSTGRES_MISSING, startCluster, type Cluster } from '../scripts/postgres-cluster.js';
import { httpCases, type HttpCase } from './cases.js';
import { spawnChild, stop, type Child } from './children.js';
import { figures, pool, runLoad, type LoadResult, type LoadRun } from './load.js';
import { fmtResult, track, type Settings } from './phases.js';
import type { SeedInfo, StartInfo } from './protocol.js';

export type TeamCaseId = 'viewComputed' | 'listComputed' | 'create';
// every answer computed: the team server keeps none between requests, the desktop would
const TEAM_CASES: TeamCaseId[] = ['viewComputed', 'listComputed', 'create'];

export interface TeamCase {
  label: string;
  desktop: LoadResult;
  oneNode: LoadResult;
  twoNodes: LoadResult;
}

export interface TeamFigures {
  /** Why the phase did not run, or null. */
  skipped: string | null;
  posts: number;
  /** initdb to accepting connections. */
  clusterStartMs: number;
  /** Inserting the posts on the desktop and through a node. */
  seedMs: { desktop: number; team: number };
  cases: Partial<Record<TeamCaseId, TeamCase>>;
}

/** A configuration under load: one server or several sharing the connections. */
interface Setup {
  urls: string[];
  c: HttpCase;
}

/** One slice on a setup: each server gets its share of the connections, all at once; the rate is their sum. */
async function slice(s: Settings, setup: Setup, seconds: number): Promise<LoadRun> {
  const share = Math.max(1, Math.floor(s.connections / setup.urls.length));
  const runs = await Promise.all(setup.urls.map((url) => runLoad({ url, method: setup.c.method, paths: setup.c.paths, bodies: setup.c.bodies, headers: setup.c.headers, computed: setup.c.computed, connections: share, seconds })));
  const together = pool(runs); // counts added, latencies pooled; the servers ran side by side, not in turn
  return { ...together, seconds, rps: together.ok / seconds };
}

/** Setups in turn, slice by slice, after a warm-up each; each one's slices pooled. */
async function rotate(s: Settings, setups: Setup[]): Promise<LoadResult[]> {
  if (s.warmupSeconds > 0) for (const setup of setups) await slice(s, setup, s.warmupSeconds);
  const runs: LoadRun[][] = setups.map(() => []);
  for (let round = 0; round < s.rounds; round++) {
    for (const [i, setup] of setups.entries()) runs[i].push(await slice(s, setup, s.seconds / s.rounds));
  }
  return runs.map((r) => figures(pool(r)));
}

export async function runTeam(s: Settings, dir: string, children: Set<Child>): Promise<TeamFigures> {
  const empty: TeamFigures = { skipped: null, posts: s.mainPosts, clusterStartMs: 0, seedMs: { desktop: 0, team: 0 }, cases: {} };
  const bin = findPostgresBin();
  if (bin === '') {
    s.log(`skipped: ${POSTGRES_MISSING}`);
    return { ...empty, skipped: POSTGRES_MISSING };
  }
  let cluster: Cluster | null = null;
  const started: Child[] = [];
  const child = () => {
    const c = track(children, spawnChild(s.profileDir));
    started.push(c);
    return c;
  };
  try {
    cluster = await startCluster(bin, { settings: ['max_connections=100', 'shared_buffers=128MB'] });
    s.log(`PostgreSQL 15 ready on 127.0.0.1:${cluster.info.port} in ${cluster.info.startMs} ms (fsync and synchronous_commit on)`);
    const url = await createDatabase(cluster.info, 'bench');
    const desktop = child();
    const nodeA = child();
    const nodeB = child();
    const desk = await desktop.call<SeedInfo>({ op: 'seed', dir: join(dir, 'team-desktop'), posts: s.mainPosts, users: s.users }, 300_000);
    // the nodes share the database; each has the files folder a team server is given with --dir
    const files = join(dir, 'team-files');
    const team = await nodeA.call<SeedInfo>({ op: 'seed', dir: files, db: url, posts: s.mainPosts, users: s.users }, 300_000);
    const second = await nodeB.call<StartInfo>({ op: 'open', dir: files, db: url });
    s.log(`seeded ${desk.postsCount} posts: desktop ${desk.seedMs.toFixed(0)} ms, team server ${team.seedMs.toFixed(0)} ms; second node up in ${second.startMs.toFixed(0)} ms`);
    const out: TeamFigures = { ...empty, clusterStartMs: cluster.info.startMs, seedMs: { desktop: desk.seedMs, team: team.seedMs } };
    const deskCases = httpCases(desk);
    const teamCases = httpCases(team); // the user's session token is in the database: it works on both nodes
    for (const id of TEAM_CASES) {
      const [d, one, two] = await rotate(s, [
        { urls: [desk.url], c: deskCases[id] },
        { urls: [team.url], c: teamCases[id] },
        { urls: [team.url, second.url], c: teamCases[id] },
      ]);
      out.cases[id] = { label: deskCases[id].label, desktop: d, oneNode: one, twoNodes: two };
      s.log(`${deskCases[id].label}: desktop ${fmtResult(d)} | 1 node ${fmtResult(one)} | 2 nodes ${fmtResult(two)}`);
    }
    return out;
  } finally {
    for (const c of started) await stop(children, c).catch(() => undefined);
    cluster?.stop();
  }
}

const n = (x: number) => Math.round(x).toLocaleString('en');
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

export function teamTable(t: TeamFigures): string[] {
  if (t.skipped !== null) return [`Team server: skipped (${t.skipped}).`];
  const head = `| team server (${t.posts.toLocaleString('en')} posts, 10 connections) | desktop req/s | p50 / p99 ms | 1 node req/s | p50 / p99 ms | 2 nodes req/s | p50 / p99 ms |`;
  const rows = Object.values(t.cases).map((c) => `| ${c.label} | ${n(c.desktop.rps)} | ${ms(c.desktop.p50)} / ${ms(c.desktop.p99)} | ${n(c.oneNode.rps)} | ${ms(c.oneNode.p50)} / ${ms(c.oneNode.p99)} | ${n(c.twoNodes.rps)} | ${ms(c.twoNodes.p50)} / ${ms(c.twoNodes.p99)} |`);
  const errors = Object.values(t.cases).flatMap((c) => [c.desktop, c.oneNode, c.twoNodes]).reduce((sum, r) => sum + r.errors + r.non2xx, 0);
  return [head, '|:--|--:|--:|--:|--:|--:|--:|', ...rows, `PostgreSQL started in ${n(t.clusterStartMs)} ms; ${errors} errors or non-2xx answers.`];
}
