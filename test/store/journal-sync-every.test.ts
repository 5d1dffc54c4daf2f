// A store whose commits are acknowledged once written, not synced each (StoreOptions.syncEveryMs, the
// logs' own store: logs/index.ts): what it syncs, and what each kind of crash can take from it. A
// process crash (SIGKILL) takes nothing acknowledged; a machine crash (staged by cutting the unsynced
// tail of the journal, or leaving a hole in it, as a power cut may) takes a tail of the commits and
// never the database: what is replayed is a prefix of them.
import { closeSync, openSync, statSync, truncateSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../server/store/db.js';
import { StatementEncoder } from '../../server/store/codec.js';
import { JournalWriter } from '../../server/store/journal.js';
import type { JournalCounters } from '../../server/store/journal.js';
import { crashCopy, journalWith, segmentFiles, startWriter, tableIds, useStores } from '../fixtures/store-helpers.js';

const stores = useStores();
const { dirs, openAt } = stores;

const ids = (n: number) => Array.from({ length: n }, (_, i) => `r${String(i).padStart(3, '0')}`);

async function writeRows(store: Store, rows: string[]): Promise<void> {
  await store.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)'));
  // one commit each, awaited: with every commit synced, one sync each
  for (const id of rows) await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', [id, `body of ${id} `.repeat(8)]));
}

/** Resolves once `holds()` is true; fails after 10 s (far past any sync interval used here). */
async function until(holds: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${holds.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a journal synced every syncEveryMs, not every commit', () => {
  it('acknowledges commits unsynced, syncs once after them, and keeps them all across a close', async () => {
    const dir = dirs.make();
    const store = await openAt(dir, { syncEveryMs: 200 });
    const before = store.stats().syncs;
    const started = Date.now();
    await writeRows(store, ids(40));
    const elapsed = Date.now() - started;
    const stats = store.stats();
    expect(stats.entries).toBe(41);
    // at most one background sync per interval elapsed (each commit synced would be 41)
    expect(stats.syncs - before).toBeLessThanOrEqual(1 + Math.floor(elapsed / 200));
    await until(() => store.stats().syncs > before);
    await store.close();
    const reopened = await openAt(dir);
    expect(await tableIds(reopened)).toEqual(ids(40));
  });

  it('syncs the old segment before a checkpoint starts a new one', async () => {
    const dir = dirs.make();
    const store = await openAt(dir, { syncEveryMs: 600_000 });
    await writeRows(store, ids(5));
    expect(store.stats().syncs).toBe(0);
    await store.checkpoint();
    expect(store.stats().syncs).toBe(1);
    await writeRows(store, ids(8).slice(5));
    const copy = dirs.make();
    crashCopy(dir, copy);
    expect(await tableIds(await openAt(copy))).toEqual(ids(8));
  });

  it('a process killed mid-stream (SIGKILL) keeps every commit it acknowledged, none of them synced', async () => {
    const dir = dirs.make();
    const writer = startWriter(['stream', dir, '20000', '600000']);
    await writer.until((lines) => lines.length >= 400);
    writer.child.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    const acked = writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
    expect(acked.length).toBeGreaterThanOrEqual(400);
    const present = new Set(await tableIds(await openAt(dir)));
    expect(acked.filter((id) => !present.has(id))).toEqual([]);
  });

  it('a machine crash that loses the unsynced tail, or part of it, leaves a prefix of the commits', async () => {
    const dir = dirs.make();
    const store = await openAt(dir, { syncEveryMs: 600_000 });
    await writeRows(store, ids(30));
    // the journal as it is now: nothing synced since the table was made
    const cut = dirs.make();
    crashCopy(dir, cut);
    const [segment] = segmentFiles(cut);
    const size = statSync(segment).size;
    truncateSync(segment, size - 40); // the last commit's bytes half written
    expect(await tableIds(await openAt(cut))).toEqual(ids(29));

    const holed = dirs.make();
    crashCopy(dir, holed);
    const [other] = segmentFiles(holed);
    // later pages reached the disk, an earlier one did not (zeros where it was)
    const fd = openSync(other, 'r+');
    writeSync(fd, Buffer.alloc(300), 0, 300, Math.floor(size / 2));
    closeSync(fd);
    const left = await tableIds(await openAt(holed));
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(30);
    expect(left).toEqual(ids(left.length));
  });

  it('a background sync that fails fails the journal as a failed write does: reported, and nothing more is appended', async () => {
    const dir = await journalWith(stores, ['a', 'b']);
    const [path] = segmentFiles(dir);
    const handle = await open(path, 'r+');
    const counters: JournalCounters = { entries: 0, syncs: 0, bytes: 0 };
    const failures: Error[] = [];
    const journal = new JournalWriter(dir, { handle, seq: 1, size: statSync(path).size }, counters, (error) => failures.push(error), {
      syncEveryMs: 20,
      datasync: async () => { throw Object.assign(new Error('EIO: the disk refused the sync'), { code: 'EIO' }); },
    });
    const insert = (id: string) => {
      const encoder = new StatementEncoder();
      encoder.add('INSERT INTO t VALUES (?, ?)', [id, `body of ${id}`]);
      return encoder.finish();
    };
    await journal.append(insert('c')); // acknowledged once written
    await until(() => failures.length > 0);
    expect(failures[0].message).toContain('EIO');
    await expect(journal.append(insert('d'))).rejects.toThrow('EIO');
    expect(counters.syncs).toBe(0);
    await journal.close();
  });
});
