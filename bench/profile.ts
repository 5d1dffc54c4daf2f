// Profiles a server under one bench case: seeds posts in a child, warms up, then records a CPU profile
// of the child's main thread only while the case runs, and prints where the time went, by source
// (Deskbase, h3, sql.js, Node, socket writes...) and by function.
//
//   npx tsx bench/profile.ts <case> [--posts 10000] [--seconds 5] [--top 30] [--keep FILE] [--ceiling | --floor]
//
// --ceiling profiles the ceiling server (replaying Deskbase's answers) instead, for comparison;
// --floor the floor (bench/floor.ts: the computed view and list on sql.js from the same file).
// --keep writes the .cpuprofile to FILE (Chrome DevTools and speedscope open it).
// Cases: view, list, listSkipTotal, listFilter, listExpand, listExpandMulti, listSortTitle, listDeepPage (page
// 3,000 at --posts 100000), create, signIn, mixed (nine views and a create in turn, signed in).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { captureRoutes, httpCases, type CaseId } from './cases.js';
import { spawnChild, tearDown } from './children.js';
import { byCategory, summarize } from './cpuprofile.js';
import { runLoad } from './load.js';
import { fmtResult } from './phases.js';
import type { SeedInfo } from './protocol.js';
import { SNAPSHOT_FILE } from '../server/store/snapshot.js';

const pad = (ms: number, total: number) => `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      posts: { type: 'string' }, seconds: { type: 'string' }, top: { type: 'string' }, keep: { type: 'string' }, ceiling: { type: 'boolean' }, floor: { type: 'boolean' },
    },
  });
  const id = (positionals[0] ?? 'view') as CaseId;
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-profile-'));
  const file = values.keep ? resolve(values.keep) : join(dir, 'window.cpuprofile');
  const deskbase = spawnChild(null);
  const replay = values.ceiling === true || values.floor === true ? spawnChild(null) : null;
  try {
    const info = await deskbase.call<SeedInfo>({ op: 'seed', dir: join(dir, 'data'), posts: Number(values.posts ?? 10_000), users: 100 }, 300_000);
    const c = httpCases(info)[id];
    if (!c) throw new Error(`unknown case ${id}`);
    let url = info.url;
    if (replay && values.floor === true) {
      await deskbase.call({ op: 'checkpoint' });
      url = (await replay.call<{ url: string }>({ op: 'floor', file: join(dir, 'data', SNAPSHOT_FILE) })).url;
    } else if (replay) url = (await replay.call<{ url: string }>({ op: 'ceiling', routes: await captureRoutes(info.url, [c]) })).url;
    const profiled = replay ?? deskbase;
    const run = (seconds: number) => runLoad({ url, method: c.method, paths: c.paths, methods: c.methods, bodies: c.bodies, headers: c.headers, computed: c.computed, connections: 10, seconds });
    await run(1);
    await profiled.call({ op: 'profileStart' });
    const result = await run(Number(values.seconds ?? 5));
    await profiled.call({ op: 'profileStop', file });
    console.log(`${c.label}${values.floor === true ? ' (floor)' : replay ? ' (ceiling)' : ''}: ${fmtResult(result)}`);
    const { totalMs, functions } = await summarize(file);
    console.log(`\nby source (self time, of ${totalMs.toFixed(0)} ms sampled)`);
    for (const x of byCategory(functions)) console.log(`${pad(x.ms, totalMs)}  ${x.name}`);
    const top = Number(values.top ?? 30);
    for (const key of ['selfMs', 'totalMs'] as const) {
      console.log(`\n${key === 'selfMs' ? 'self' : 'total'} time by function`);
      for (const f of [...functions].sort((a, b) => b[key] - a[key]).slice(0, top)) console.log(`${pad(f[key], totalMs)}  ${f.name}`);
    }
  } finally {
    await tearDown([deskbase, replay], dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
