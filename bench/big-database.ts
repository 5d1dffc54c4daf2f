// A bigger desktop database (issue 28): a data folder filled to SIZE (1 GiB by default) of posts-like
// rows, then its checkpoint (time, the longest the event loop waited meanwhile, how long a write made
// when it starts waits for its answer, RSS during and after), a backup's copy, and a start-up on it in a
// fresh process (time to open, RSS). Not part of CI: it builds GiBs.
//
//   npx tsx bench/big-database.ts [--gib 1] [--dir /tmp/x]   (builds, checkpoints, reopens)
//   npx tsx bench/big-database.ts --dir /tmp/x --open          (start-up alone, in a fresh process)
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../server/store/db.js';

/** The default cap (server/store/db.ts), named here so that older code can be measured with the same bench. */
const MAX_BYTES = 4 * 1024 ** 3;

const { values } = parseArgs({ options: { gib: { type: 'string' }, dir: { type: 'string' }, open: { type: 'boolean' }, 'no-backup': { type: 'boolean' } } });
const gib = Number(values.gib ?? 1);
const target = gib * 1024 ** 3;
const dir = values.dir ?? (await mkdtemp(join(tmpdir(), 'deskbase-big-')));
const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const rss = () => process.memoryUsage().rss;

/**
 * The longest gap between timer ticks (5 ms apart) while `work` runs, what any request would have
 * waited, and the largest RSS seen at those ticks.
 */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number; peakRss: number }> {
  let last = performance.now();
  let gap = 0;
  let peakRss = rss();
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    peakRss = Math.max(peakRss, rss());
  }, 5);
  try {
    const result = await work();
    return { result, gapMs: Math.max(gap, performance.now() - last), peakRss };
  } finally {
    clearInterval(timer);
  }
}

if (values.open === true && values.dir !== undefined) {
  const t = performance.now();
  const store = await openStore({ dir: values.dir, maxDatabaseBytes: MAX_BYTES });
  const ms = performance.now() - t;
  const size = Number((await store.get<{ s: number }>('SELECT page_count * page_size AS s FROM pragma_page_count, pragma_page_size'))?.s);
  console.log(`start-up on ${mib(size)} (fresh process): ${(ms / 1000).toFixed(2)} s, RSS ${mib(rss())}`);
  await store.close();
  process.exit(0);
}

try {
  const store = await openStore({ dir, maxDatabaseBytes: MAX_BYTES, checkpointBytes: 2 ** 40 });
  await store.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS posts (id INTEGER PRIMARY KEY, title TEXT, body TEXT)'));
  const rowsPerWrite = 20_000; // about 20 MiB of rows
  let size = 0;
  const writes: number[] = [];
  const t0 = performance.now();
  while (size < target) {
    const t = performance.now();
    await store.write((tx) => tx.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rowsPerWrite}) INSERT INTO posts (title, body) SELECT 'post ' || i, hex(randomblob(500)) FROM n`));
    writes.push(performance.now() - t);
    size = Number((await store.get<{ s: number }>('SELECT page_count * page_size AS s FROM pragma_page_count, pragma_page_size'))?.s);
  }
  writes.sort((a, b) => a - b);
  console.log(
    `filled to ${mib(size)} in ${((performance.now() - t0) / 1000).toFixed(1)} s by ${writes.length} writes of ${rowsPerWrite} rows ` +
      `(median ${writes[writes.length >> 1].toFixed(0)} ms, longest ${writes.at(-1)!.toFixed(0)} ms); RSS ${mib(rss())}`,
  );
  const cp = await watched(async () => {
    const t = performance.now();
    const done = store.checkpoint();
    // a one-row write made once the checkpoint has started its copy: how long writes wait for it
    await new Promise((resolve) => setTimeout(resolve, 50));
    const w = performance.now();
    await store.write((tx) => tx.run("INSERT INTO posts (title, body) VALUES ('during', 'the checkpoint')"));
    const writeWaitMs = performance.now() - w;
    await done;
    return { ms: performance.now() - t, writeWaitMs };
  });
  console.log(
    `checkpoint at ${mib(size)}: ${(cp.result.ms / 1000).toFixed(2)} s, longest event-loop wait ${cp.gapMs.toFixed(0)} ms (target ≤ 250 ms), ` +
      `a write made 50 ms into it answered after ${(cp.result.writeWaitMs / 1000).toFixed(2)} s; RSS peak ${mib(cp.peakRss)}, after ${mib(rss())}`,
  );
  if (values['no-backup'] !== true) {
    const backup = await watched(async () => {
      const t = performance.now();
      const { bytes } = await store.backup();
      return { ms: performance.now() - t, bytes: bytes.length };
    });
    console.log(`backup copy (${mib(backup.result.bytes)}): ${(backup.result.ms / 1000).toFixed(2)} s, longest event-loop wait ${backup.gapMs.toFixed(0)} ms, RSS peak ${mib(backup.peakRss)}`);
  }
  await store.close();
  console.log(execFileSync(process.execPath, [...process.execArgv, process.argv[1], '--dir', dir, '--open'], { encoding: 'utf8' }).trim());
} finally {
  if (values.dir === undefined) await rm(dir, { recursive: true, force: true });
}
