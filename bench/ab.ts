// Before/after of a server change: one bench case against an older commit and against this working
// tree, each in its own child process, in alternating slices so that background load weighs on both.
//
//   npx tsx bench/ab.ts <commit> <case> [--after COMMIT] [--seconds 10] [--rounds 10] [--posts 10000]
//                                        [--connections 10] [--subscribers N]
//
// --after compares with that commit instead of the working tree. --subscribers N attaches N SSE
// subscribers to posts/* on both servers for the run (the realtime fan-out's cost to the case), then
// measures one create's delivery to the last of them on each, alternating (p50/p99).
// The commit is exported with `git archive` to a temporary folder that borrows this tree's
// node_modules (and this tree's bench/, so both sides are driven the same way).
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpCases, type CaseId } from './cases.js';
import { attach, deliveryTimes, percentile, spawnSubscribers } from './realtime.js';
import { spawnChild, tearDown, type Child } from './children.js';
import { alternate, fmtResult, type Settings } from './phases.js';
import type { SeedInfo } from './protocol.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function exportCommit(commit: string, into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  const archive = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', into], { input: archive });
  await symlink(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  await rm(join(into, 'bench'), { recursive: true, force: true });
  await cp(join(ROOT, 'bench'), join(into, 'bench'), { recursive: true, filter: (src) => !src.includes('/results/') });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      after: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, posts: { type: 'string' }, connections: { type: 'string' }, subscribers: { type: 'string' },
    },
  });
  const [commit, id = 'view'] = positionals;
  if (!commit) throw new Error('usage: npx tsx bench/ab.ts <commit> <case> [--seconds 10] [--rounds 10]');
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-ab-'));
  const children: Child[] = [];
  try {
    await exportCommit(commit, join(dir, 'before'));
    if (values.after) await exportCommit(values.after, join(dir, 'after'));
    const afterChild = values.after ? join(dir, 'after', 'bench', 'child.ts') : undefined;
    children.push(spawnChild(null, join(dir, 'before', 'bench', 'child.ts')), spawnChild(null, afterChild));
    const seeded: SeedInfo[] = [];
    for (const [i, child] of children.entries()) {
      seeded.push(await child.call<SeedInfo>({ op: 'seed', dir: join(dir, `data-${i}`), posts: Number(values.posts ?? 10_000), users: 100 }, 300_000));
    }
    const s: Settings = {
      connections: Number(values.connections ?? 10), seconds: Number(values.seconds ?? 10), rounds: Number(values.rounds ?? 10),
      warmupSeconds: 1, mainPosts: 0, smallPosts: 0, largePosts: 0, users: 100, profileDir: null, log: () => undefined,
    };
    const target = (i: number) => ({ url: seeded[i].url, c: httpCases(seeded[i])[id as CaseId], child: children[i] });
    if (!target(0).c) throw new Error(`unknown case ${id}`);
    const subscribers = Number(values.subscribers ?? 0);
    // one subscriber process per server (bench/subscribers.ts)
    const subs = subscribers > 0 ? seeded.map(() => spawnSubscribers()) : [];
    children.push(...subs);
    for (const [i, x] of subs.entries()) await attach(x, seeded[i].url, subscribers);
    // the journal's entries per sync over the run (writes sharing one fdatasync: group commit)
    const stats = () => Promise.all(children.slice(0, 2).map((c) => c.call<{ entries: number; syncs: number }>({ op: 'stats' })));
    const statsBefore = await stats();
    const [before, after] = await alternate(s, target(0), target(1));
    const statsAfter = await stats();
    const perSync = statsAfter.map((x, i) => (x.entries - statsBefore[i].entries) / Math.max(1, x.syncs - statsBefore[i].syncs));
    if (subscribers > 0) {
      const times: number[][] = [[], []];
      for (let round = 0; round < 10; round++) {
        for (const i of [0, 1]) times[i].push(...(await deliveryTimes(subs[i], seeded[i].url, seeded[i], 5)));
      }
      for (const [i, name] of [commit, values.after ?? 'the working tree'].entries()) {
        const sorted = times[i].sort((a, b) => a - b);
        console.log(`delivery to the last of ${subscribers} at ${name}: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms`);
      }
    }
    const writes = (i: number) => (Number.isFinite(perSync[i]) && perSync[i] > 0 ? `, ${perSync[i].toFixed(1)} writes/sync` : '');
    console.log(`${id} at ${commit}: ${fmtResult(before)}, ${before.cpuUsPerRequest.toFixed(0)} µs CPU/req${writes(0)}`);
    console.log(`${id} at ${values.after ?? 'the working tree'}: ${fmtResult(after)}, ${after.cpuUsPerRequest.toFixed(0)} µs CPU/req${writes(1)}`);
    console.log(`change: ${((100 * after.rps) / before.rps - 100).toFixed(1)}% req/s`);
  } finally {
    await tearDown(children, dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
