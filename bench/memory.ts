// The memory of the bench's large data set, alone (issue 28: "RSS at 100k posts after load"), without
// the ~7 minutes of `npm run bench`: seeds a folder of N posts once (kept, reused by later runs), copies
// it, opens the copy in a fresh server process and runs the scale phase's load on it (bench/scale.ts: the
// four lists on one connection, then creates on ten), printing the server's memory at each step: RSS,
// V8's heap, external and ArrayBuffer bytes, each WebAssembly memory (sql.js: the main database and the
// log store share one module) and /proc/self/smaps_rollup's anonymous and file-backed pages; after
// load both as the bench reads it and after a full GC, then after a checkpoint.
//
//   npx tsx bench/memory.ts [--posts 100000] [--seconds 5] [--folder /tmp/deskbase-memory-<posts>]
//     [--lists listComputed,listFilter] [--no-creates]   (BENCH_MAPS=1: the largest mappings too)
import { cp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { httpCases, type CaseId } from './cases.js';
import { spawnChild, tearDown, type Child } from './children.js';
import { alternate, fmtResult } from './phases.js';
import type { MemoryInfo, SeedInfo, StartInfo } from './protocol.js';

const { values } = parseArgs({
  options: { posts: { type: 'string' }, seconds: { type: 'string' }, folder: { type: 'string' }, lists: { type: 'string' }, 'no-creates': { type: 'boolean' } },
});
const posts = Number(values.posts ?? 100_000);
const seconds = Number(values.seconds ?? 5);
const folder = values.folder ?? `/tmp/deskbase-memory-${posts}`;
const MB = 2 ** 20;

function line(label: string, m: MemoryInfo): string {
  const mb = (n: number | undefined) => (n === undefined ? '?' : (n / MB).toFixed(1));
  const smaps = m.smaps === undefined ? '' : `; smaps anon ${(m.smaps.Anonymous / 1024).toFixed(1)} file ${((m.smaps.Rss - m.smaps.Anonymous) / 1024).toFixed(1)}`;
  const maps = m.maps === undefined ? '' : `\n    ${m.maps.join('\n    ')}`;
  return `${label.padEnd(24)} RSS ${mb(m.rssBytes)} MB; heap used ${mb(m.heapUsedBytes)} / total ${mb(m.heapTotalBytes)}; external ${mb(m.externalBytes)} (arrayBuffers ${mb(m.arrayBuffersBytes)}); wasm ${(m.wasmBytes ?? []).map(mb).join(' + ')}${smaps}${maps}`;
}

async function main(): Promise<void> {
  const seeded = join(folder, 'seeded');
  const infoFile = join(folder, 'seed.json');
  let info: SeedInfo;
  if (await stat(infoFile).then(() => true, () => false)) {
    info = JSON.parse(await (await import('node:fs/promises')).readFile(infoFile, 'utf8')) as SeedInfo;
  } else {
    await rm(folder, { recursive: true, force: true });
    const seeder = spawnChild(null);
    info = await seeder.call<SeedInfo>({ op: 'seed', dir: seeded, posts, users: 100 }, 600_000);
    await seeder.stop();
    await (await import('node:fs/promises')).writeFile(infoFile, JSON.stringify(info));
    console.log(`seeded ${info.postsCount} posts in ${info.seedMs.toFixed(0)} ms`);
  }
  const work = join(folder, 'run');
  await rm(work, { recursive: true, force: true });
  await cp(seeded, work, { recursive: true });
  const child: Child = spawnChild(null);
  try {
    const start = await child.call<StartInfo>({ op: 'open', dir: work }, 120_000);
    console.log(`opened ${start.postsCount} posts in ${start.startMs.toFixed(0)} ms`);
    console.log(line('after start', await child.call<MemoryInfo>({ op: 'memory' })));
    const cases = httpCases({ ...info, url: start.url });
    const s = { connections: 10, seconds, rounds: 5, warmupSeconds: 1, mainPosts: 0, smallPosts: 0, largePosts: posts, users: 100, profileDir: null, log: console.log };
    const target = (id: CaseId) => ({ url: start.url, c: cases[id], child });
    const short = { ...s, seconds: Math.min(seconds, 3) };
    const lists = (values.lists?.split(',') ?? ['listComputed', 'listFilter', 'listSortTitle', 'listDeepPage']) as CaseId[];
    for (const id of lists) {
      // the scale phase alternates with the small data set; here the large one twice (same requests)
      const [a, b] = await alternate(short, target(id), target(id), 1);
      console.log(`${id}: ${fmtResult(a)} | ${fmtResult(b)}`);
      console.log(line(`after ${id}`, await child.call<MemoryInfo>({ op: 'memory' })));
    }
    if (values['no-creates'] !== true) {
      const [a, b] = await alternate(s, target('create'), target('create'));
      console.log(`create: ${fmtResult(a)} | ${fmtResult(b)}`);
    }
    console.log(line('after load (the bench)', await child.call<MemoryInfo>({ op: 'memory' })));
    console.log(line('after load, full GC', await child.call<MemoryInfo>({ op: 'memory', gc: true })));
    const { ms } = await child.call<{ ms: number }>({ op: 'checkpoint' }, 120_000);
    console.log(line(`after checkpoint ${ms.toFixed(0)} ms`, await child.call<MemoryInfo>({ op: 'memory' })));
    console.log(line('after checkpoint, GC', await child.call<MemoryInfo>({ op: 'memory', gc: true })));
  } finally {
    await tearDown([child], work);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
