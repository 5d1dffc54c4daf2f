// Checkpoints: they lose nothing written while they run, they start by themselves only past the
// threshold, and between them a write costs the same at any database size (no snapshot per write).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadSqlJs, type WriteTx } from '../../server/store/db.js';
import { crashCopy, segmentFiles, tableIds as ids, useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

const createTable = (tx: WriteTx) => tx.run('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)');
/** Fixed-width ids, so every single-row insert has the same journal entry size. */
const rowId = (n: number) => `r${String(n).padStart(9, '0')}`;
const insert = (n: number) => (tx: WriteTx) => tx.run('INSERT INTO t VALUES (?, ?)', [rowId(n), 'same body']);

describe('checkpoints', () => {
  it('lose nothing written while they run', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write(createTable);
    const writes: Promise<unknown>[] = [];
    let n = 0;
    let pumping = true;
    const pump = () => {
      if (!pumping) return;
      for (let i = 0; i < 5; i++) writes.push(store.write(insert(n++)));
      setImmediate(pump);
    };
    pump();
    for (let round = 0; round < 4; round++) {
      const issued = writes.length;
      await Promise.all([store.checkpoint(), store.checkpoint()]);
      expect(writes.length).toBeGreaterThan(issued); // writes kept arriving during the checkpoint
    }
    pumping = false;
    await Promise.all(writes);
    expect(store.stats().checkpoints).toBeGreaterThanOrEqual(4);
    const expected = Array.from({ length: n }, (_, i) => rowId(i));

    const crashed = dirs.make();
    crashCopy(dir, crashed);
    expect(await ids(await openAt(crashed))).toEqual(expected);
    await store.close();
    const reopened = await openAt(dir);
    expect((await ids(reopened))).toEqual(expected);
    expect(reopened.stats().replayed).toBe(0);
    expect(segmentFiles(dir)).toHaveLength(1);
  });

  it('let writes commit between the steps of their copy, which then holds them (no write waits for the whole copy)', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write(createTable);
    // about 40 MiB: the copy takes many steps of 2 MiB
    await store.write((tx) => tx.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO t SELECT 'bulk' || i, printf('%01000d', i) FROM n"));
    const checkpoint = store.checkpoint();
    let finished = false;
    void checkpoint.then(() => (finished = true));
    // once the checkpoint has its copy under way (its first turn is taken within a few microtasks)
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(finished).toBe(false);
    await store.write(insert(1));
    const answeredBeforeTheEnd = !finished;
    await checkpoint;
    expect(answeredBeforeTheEnd).toBe(true);
    // the snapshot on disk holds the write made during its copy: it committed between two steps
    const SQL = await loadSqlJs();
    const snapshot = new SQL.Database(readFileSync(join(dir, 'data.db')));
    expect(snapshot.exec(`SELECT count(*) FROM t WHERE id = '${rowId(1)}'`)[0].values).toEqual([[1]]);
    expect(snapshot.exec('PRAGMA integrity_check')[0].values).toEqual([['ok']]);
    snapshot.close();
    await store.close();
    const reopened = await openAt(dir);
    expect((await reopened.get<{ n: number }>('SELECT count(*) AS n FROM t'))?.n).toBe(40_001);
  });

  it('start by themselves once the journal passes the threshold, not before', async () => {
    const dir = dirs.make();
    const store = await openAt(dir, { checkpointBytes: 8192 });
    await store.write(createTable);
    for (let i = 0; i < 20; i++) await store.write(insert(i));
    expect(store.stats().journalSize).toBeLessThan(8192);
    expect(store.stats().checkpoints).toBe(0);
    expect(existsSync(join(dir, 'data.db'))).toBe(false);

    let i = 20;
    while (store.stats().journalSize < 8192) await store.write(insert(i++));
    await vi.waitFor(() => expect(store.stats().checkpoints).toBe(1));
    expect(existsSync(join(dir, 'data.db'))).toBe(true);
    expect(store.stats().journalSize).toBeLessThan(8192);
    expect(segmentFiles(dir)).toHaveLength(1);
  });

  it('are skipped by close() when nothing changed since the snapshot', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write(createTable);
    await store.close();
    const mtime = statSync(join(dir, 'data.db')).mtimeMs;
    const again = await openAt(dir);
    expect(await again.all('SELECT id FROM t')).toEqual([]);
    await again.close();
    expect(statSync(join(dir, 'data.db')).mtimeMs).toBe(mtime);
  });
});

describe('write cost', () => {
  it('appends the same bytes per write at 100 rows and at 50k rows, and never writes the snapshot', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await store.write(createTable);
    const measure = async (from: number) => {
      const snapshot = statSync(join(dir, 'data.db'));
      const before = store.stats();
      const started = performance.now();
      for (let i = 0; i < 20; i++) await store.write(insert(from + i));
      const elapsed = (performance.now() - started) / 20;
      const after = store.stats();
      const snapshotAfter = statSync(join(dir, 'data.db'));
      expect(after.checkpoints).toBe(before.checkpoints);
      expect([snapshotAfter.size, snapshotAfter.mtimeMs]).toEqual([snapshot.size, snapshot.mtimeMs]);
      return { bytesPerWrite: (after.journalBytes - before.journalBytes) / 20, msPerWrite: elapsed };
    };

    await store.write(async (tx) => { for (let i = 0; i < 100; i++) await insert(i)(tx); });
    await store.checkpoint();
    const small = await measure(1_000_000);
    await store.write(async (tx) => { for (let i = 100; i < 50_000; i++) await insert(i)(tx); });
    await store.checkpoint();
    const large = await measure(2_000_000);

    console.log(`write cost: ${JSON.stringify({ small, large })}`);
    expect(large.bytesPerWrite).toBe(small.bytesPerWrite);
    expect(small.bytesPerWrite).toBeLessThan(100);
  });
});
