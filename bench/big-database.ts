// A bigger desktop database (issue 28): a data folder filled to SIZE (1 GiB by default) of posts-like
// rows, then its checkpoint (time in the server, the longest the event loop waited meanwhile, RSS),
// and a start-up on it (time to open, RSS after). Not part of CI: it builds GiBs.
//
//   npx tsx bench/big-database.ts [--gib 1] [--dir /tmp/x]   (builds, checkpoints, reopens)
//   npx tsx bench/big-database.ts --dir /tmp/x --open          (start-up alone, in a fresh process)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../server/store/db.js';

const { values } = parseArgs({ options: { gib: { type: 'string' }, dir: { type: 'string' }, open: { type: 'boolean' } } });
const gib = Number(values.gib ?? 1);
const target = gib * 1024 ** 3;
const dir = values.dir ?? (await mkdtemp(join(tmpdir(), 'deskbase-big-')));
const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;

/** The longest gap between timer ticks (5 ms apart) while `work` runs: what any request would have waited. */
async function longestGap<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    return { result, gapMs: Math.max(gap, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

if (values.open === true && values.dir !== undefined) {
  const t = performance.now();
  const store = await openStore({ dir: values.dir, maxDatabaseBytes: 4 * 1024 ** 3 });
  const ms = performance.now() - t;
  const size = Number((await store.get<{ s: number }>('SELECT page_count * page_size AS s FROM pragma_page_count, pragma_page_size'))?.s);
  console.log(`start-up on ${mib(size)}: ${(ms / 1000).toFixed(2)} s, RSS ${mib(process.memoryUsage().rss)}`);
  await store.close();
  process.exit(0);
}

try {
  let store = await openStore({ dir, maxDatabaseBytes: target * 1.2, checkpointBytes: 2 ** 40 });
  await store.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS posts (id INTEGER PRIMARY KEY, title TEXT, body TEXT)'));
  const rowsPerWrite = 20_000; // about 20 MiB of rows
  let size = 0;
  const t0 = performance.now();
  while (size < target) {
    await store.write((tx) => tx.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rowsPerWrite}) INSERT INTO posts (title, body) SELECT 'post ' || i, hex(randomblob(500)) FROM n`));
    size = Number((await store.get<{ s: number }>('SELECT page_count * page_size AS s FROM pragma_page_count, pragma_page_size'))?.s);
  }
  console.log(`filled to ${mib(size)} in ${((performance.now() - t0) / 1000).toFixed(1)} s; RSS ${mib(process.memoryUsage().rss)}`);
  const cp = await longestGap(async () => {
    const t = performance.now();
    await store.checkpoint();
    return performance.now() - t;
  });
  console.log(`checkpoint at ${mib(size)}: ${(cp.result / 1000).toFixed(2)} s, longest event-loop wait ${cp.gapMs.toFixed(0)} ms (target ≤ 250 ms); RSS ${mib(process.memoryUsage().rss)}`);
  const backup = await longestGap(async () => {
    const t = performance.now();
    const { bytes } = await store.backup();
    return { ms: performance.now() - t, bytes: bytes.length };
  });
  console.log(`backup copy (${mib(backup.result.bytes)}): ${(backup.result.ms / 1000).toFixed(2)} s, longest event-loop wait ${backup.gapMs.toFixed(0)} ms`);
  await store.close();
  const t1 = performance.now();
  store = await openStore({ dir, maxDatabaseBytes: target * 1.2 });
  console.log(`start-up on ${mib(size)}: ${((performance.now() - t1) / 1000).toFixed(2)} s, RSS ${mib(process.memoryUsage().rss)} (this process built it too)`);
  await store.close();
} finally {
  if (values.dir === undefined) await rm(dir, { recursive: true, force: true });
}
