// The journal's group commits alone: a store on a data folder and N writers, each taking a random few
// turns of the event loop (with a little synchronous work in each) before every one-row write, so that
// their commits arrive out of step as requests' do. Prints durable writes per second and journal
// entries per sync: what the group commit pipeline (store/journal.ts) lifts when the disk's sync, not
// the CPU, is the bound. Compare two commits by running it in each tree, alternating.
//
//   npx tsx bench/journal-writers.ts [--writers 10] [--seconds 3] [--work 40] [--rounds 1]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tearDown } from './children.js';
import { openStore } from '../server/store/db.js';

const spin = (us: number) => {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
};
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function round(writers: number, seconds: number, work: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deskbase-journal-writers-'));
  const store = await openStore({ dir });
  try {
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    const body = 'x'.repeat(500);
    const before = store.stats();
    const end = performance.now() + seconds * 1000;
    let done = 0;
    await Promise.all(Array.from({ length: writers }, async () => {
      while (performance.now() < end) {
        for (let t = Math.floor(Math.random() * 6); t > 0; t--) {
          await turn();
          spin(Math.random() * work);
        }
        await store.write((tx) => tx.run('INSERT INTO t (body) VALUES (?)', [body]));
        done++;
      }
    }));
    const after = store.stats();
    const perSync = (after.entries - before.entries) / Math.max(1, after.syncs - before.syncs);
    return `${writers} writers: ${Math.round(done / seconds)} durable writes/s, ${perSync.toFixed(2)} entries per sync`;
  } finally {
    await tearDown([store], dir);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { writers: { type: 'string' }, seconds: { type: 'string' }, work: { type: 'string' }, rounds: { type: 'string' } } });
  for (let i = 0; i < Number(values.rounds ?? 1); i++) {
    console.log(await round(Number(values.writers ?? 10), Number(values.seconds ?? 3), Number(values.work ?? 40)));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
