// A long write that asks for it (`WriteTx.keepReadsGoing`: a large import, a truncate) lets reads from
// outside go on during its transaction, on the data as it was committed, where they waited for its end
// before; a snapshot begun meanwhile reads that state to its end; after the commit reads see the write.
import { describe, expect, it } from 'vitest';
import { nextTurn } from '../../server/loop-slice.js';
import { useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

const count = (n: { n: number } | undefined) => Number(n?.n);

describe('reads during a long write', () => {
  it('go on, on the committed data, until it commits; a snapshot begun meanwhile keeps that state', async () => {
    const store = await openAt(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    await store.write((tx) => tx.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t (body) SELECT printf('%0400d', i) FROM n"));
    const seen: number[] = [];
    let writing = true;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const write = store.write(async (tx) => {
      await tx.keepReadsGoing?.();
      for (let i = 0; i < 20; i++) {
        await tx.run('INSERT INTO t (body) VALUES (?)', [`new ${i}`]);
        await nextTurn();
      }
      await held; // the transaction stays open until the reads below have run
    }).finally(() => (writing = false));
    // reads from outside, while the transaction is open
    for (let i = 0; i < 5; i++) {
      seen.push(count(await store.get<{ n: number }>('SELECT count(*) AS n FROM t')));
      await nextTurn();
    }
    const snapshot = store.snapshot(async (db) => {
      const first = count(await db.get<{ n: number }>('SELECT count(*) AS n FROM t'));
      release();
      await write; // the write commits while this snapshot is still reading
      const second = count(await db.get<{ n: number }>('SELECT count(*) AS n FROM t'));
      return [first, second];
    });
    expect(writing).toBe(true);
    expect(seen).toEqual([2000, 2000, 2000, 2000, 2000]);
    expect(await snapshot).toEqual([2000, 2000]);
    expect(count(await store.get<{ n: number }>('SELECT count(*) AS n FROM t'))).toBe(2020);
  });

  it('serve a snapshot that began waiting before the copy was made, without waiting for the write', async () => {
    const store = await openAt(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    await store.write((tx) => tx.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO t (body) SELECT printf('%0600d', i) FROM n"));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const began = new Promise<void>((resolve) => (started = resolve));
    const write = store.write(async (tx) => {
      started();
      await tx.keepReadsGoing?.(); // copies ~13 MB in slices: the snapshot below is asked meanwhile
      await tx.run("INSERT INTO t (body) VALUES ('new')");
      await held;
    });
    await began;
    const n = await store.snapshot(async (db) => count(await db.get<{ n: number }>('SELECT count(*) AS n FROM t')));
    expect(n).toBe(20000);
    release();
    await write;
    expect(count(await store.get<{ n: number }>('SELECT count(*) AS n FROM t'))).toBe(20001);
  });

  it('never show a transaction that rolls back', async () => {
    const store = await openAt(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    const reads: number[] = [];
    const failed = store.write(async (tx) => {
      await tx.keepReadsGoing?.();
      await tx.run("INSERT INTO t (body) VALUES ('doomed')");
      for (let i = 0; i < 3; i++) {
        reads.push(count(await store.get<{ n: number }>('SELECT count(*) AS n FROM t')));
      }
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(reads).toEqual([0, 0, 0]);
    expect(count(await store.get<{ n: number }>('SELECT count(*) AS n FROM t'))).toBe(0);
  });

  it('wait as before when the write changed something before asking', async () => {
    const store = await openAt(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    const asked: { read?: Promise<number> } = {};
    const write = store.write(async (tx) => {
      await tx.run("INSERT INTO t (body) VALUES ('doomed')");
      await tx.keepReadsGoing?.(); // too late: a copy now would hold this uncommitted row
      asked.read = store.get<{ n: number }>('SELECT count(*) AS n FROM t').then(count);
      for (let i = 0; i < 5; i++) await nextTurn();
      throw new Error('rolled back');
    });
    await expect(write).rejects.toThrow('rolled back');
    // the read waited for the transaction's end: it never saw the row that rolled back
    expect(await asked.read).toBe(0);
  });
});
