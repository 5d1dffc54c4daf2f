// Profiles Deskbase under one bench case: seeds posts in a child running `node --cpu-prof`, loads it
// with the case for a few seconds, stops it, and prints where the server's CPU time went.
//
//   npx tsx bench/profile.ts <case> [--posts 10000] [--seconds 5] [--top 30] [--keep DIR] [--ceiling]
//
// --ceiling profiles the ceiling server (replaying Deskbase's answers) instead, for comparison.
// Cases: view, list, listSkipTotal, listFilter, listExpand, create, signIn.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { captureRoutes, httpCases, type CaseId } from './cases.js';
import { spawnChild } from './children.js';
import { summarize } from './cpuprofile.js';
import { runLoad } from './load.js';
import { fmtResult } from './phases.js';
import type { SeedInfo } from './protocol.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      posts: { type: 'string' }, seconds: { type: 'string' }, top: { type: 'string' }, keep: { type: 'string' }, ceiling: { type: 'boolean' },
    },
  });
  const id = (positionals[0] ?? 'view') as CaseId;
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-profile-'));
  const profileDir = values.keep ? resolve(values.keep) : join(dir, 'profiles');
  const ceiling = values.ceiling === true;
  const deskbase = spawnChild(ceiling ? null : profileDir);
  const replay = ceiling ? spawnChild(profileDir) : null;
  try {
    const info = await deskbase.call<SeedInfo>({ op: 'seed', dir: join(dir, 'data'), posts: Number(values.posts ?? 10_000), users: 100 }, 300_000);
    const c = httpCases(info)[id];
    if (!c) throw new Error(`unknown case ${id}`);
    let url = info.url;
    if (replay) url = (await replay.call<{ url: string }>({ op: 'ceiling', routes: await captureRoutes(info.url, [c]) })).url;
    const result = await runLoad({ url, method: c.method, paths: c.paths, bodies: c.bodies, headers: c.headers, connections: 10, seconds: Number(values.seconds ?? 5) });
    console.log(`${c.label}${ceiling ? ' (ceiling)' : ''}: ${fmtResult(result)}`);
    console.log('store stats:', await deskbase.call({ op: 'stats' }));
    await deskbase.stop();
    await replay?.stop();
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader
    // hooks run in a worker of their own)
    const files = (await readdir(profileDir)).filter((f) => /\.0\.\d+\.cpuprofile$/.test(f));
    if (files.length === 0) throw new Error(`no main-thread profile in ${profileDir}`);
    const { totalMs, functions } = await summarize(join(profileDir, files[files.length - 1]));
    const top = Number(values.top ?? 30);
    const show = (title: string, key: 'selfMs' | 'totalMs') => {
      console.log(`\n${title} (of ${totalMs.toFixed(0)} ms sampled, seeding included)`);
      for (const f of [...functions].sort((a, b) => b[key] - a[key]).slice(0, top)) {
        console.log(`${f[key].toFixed(0).padStart(8)} ms ${((100 * f[key]) / totalMs).toFixed(1).padStart(5)}%  ${f.name}`);
      }
    };
    show('self time', 'selfMs');
    show('total time', 'totalMs');
  } finally {
    await deskbase.stop();
    await replay?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
