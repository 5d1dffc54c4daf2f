// A few cases of the bench's main section alone: Deskbase (this working tree) beside the node:http
// ceiling replaying its answers, alternating in slices as `npm run bench` does, with the ratio and the
// CPU µs per request of both. For checking a change against the targets without the whole bench.
//
//   npx tsx bench/ratio.ts [case...] [--seconds 10] [--rounds 5] [--posts 10000] [--floor]
//
// Cases default to view, viewComputed, list, listComputed.
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { captureRoutes, httpCases, type CaseId } from './cases.js';
import { spawnChild, tearDown, type Child } from './children.js';
import { alternate, fmtResult, type Settings } from './phases.js';
import type { SeedInfo } from './protocol.js';
import { SNAPSHOT_FILE } from '../server/store/snapshot.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { seconds: { type: 'string' }, rounds: { type: 'string' }, posts: { type: 'string' }, floor: { type: 'boolean' } },
  });
  const ids = (positionals.length > 0 ? positionals : ['view', 'viewComputed', 'list', 'listComputed']) as CaseId[];
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-ratio-'));
  const children: Child[] = [];
  try {
    const deskbase = spawnChild(null);
    children.push(deskbase);
    const info = await deskbase.call<SeedInfo>({ op: 'seed', dir: join(dir, 'data'), posts: Number(values.posts ?? 10_000), users: 100 }, 300_000);
    const cases = httpCases(info);
    for (const id of ids) if (!cases[id]) throw new Error(`unknown case ${id}`);
    const ceiling = spawnChild(null);
    children.push(ceiling);
    const { url } = await ceiling.call<{ url: string }>({ op: 'ceiling', routes: await captureRoutes(info.url, ids.map((id) => cases[id])) });
    // --floor: a bare node:http server computing the same answers on sql.js from the checkpointed file
    // (bench/floor.ts), measured against the ceiling too: what a computed read on sql.js can reach at best
    let floor: { url: string; child: Child } | null = null;
    if (values.floor === true) {
      await deskbase.call({ op: 'checkpoint' });
      const child = spawnChild(null);
      children.push(child);
      floor = { child, url: (await child.call<{ url: string }>({ op: 'floor', file: join(dir, 'data', SNAPSHOT_FILE) })).url };
    }
    const s: Settings = {
      connections: 10, seconds: Number(values.seconds ?? 10), rounds: Number(values.rounds ?? 5),
      warmupSeconds: 1, mainPosts: 0, smallPosts: 0, largePosts: 0, users: 100, profileDir: null, log: () => undefined,
    };
    for (const id of ids) {
      const load0 = loadavg()[0];
      const [d, k] = await alternate(s, { url: info.url, c: cases[id], child: deskbase }, { url, c: cases[id], child: ceiling });
      console.log(
        `${id}: Deskbase ${fmtResult(d)}, ${d.cpuUsPerRequest.toFixed(0)} µs CPU/req | ceiling ${fmtResult(k)}, ${k.cpuUsPerRequest.toFixed(0)} µs CPU/req` +
          ` | ${((100 * d.rps) / k.rps).toFixed(0)}% (load ${load0.toFixed(1)}-${loadavg()[0].toFixed(1)})`,
      );
      if (floor !== null) {
        const [f, k2] = await alternate(s, { url: floor.url, c: cases[id], child: floor.child }, { url, c: cases[id], child: ceiling });
        console.log(`${id}: floor ${fmtResult(f)}, ${f.cpuUsPerRequest.toFixed(0)} µs CPU/req | ceiling ${fmtResult(k2)}, ${k2.cpuUsPerRequest.toFixed(0)} µs CPU/req | ${((100 * f.rps) / k2.rps).toFixed(0)}%`);
      }
    }
  } finally {
    await tearDown(children, dir);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
