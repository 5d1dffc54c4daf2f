// The asynchronous store on sql.js's one connection: a write's function may await inside its
// transaction, so writes take turns and reads from outside wait until the transaction ends. A reader
// never sees uncommitted rows, two writes never interleave, and a read through the store from inside a
// transaction fails clearly instead of waiting for itself forever; so does a write, snapshot, backup or
// checkpoint started from inside a snapshot's or backup's own function (the turn its caller holds).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import type { Store, WriteTx } from '../../server/store/db.js';
import { useStores } from '../fixtures/store-helpers.js';

const stores = useStores();

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function openWithTable(dir: string | null = null, lockWaitMs?: number): Promise<Store> {
  const store = await stores.openAt(dir, lockWaitMs === undefined ? {} : { lockWaitMs });
  await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER)'));
  return store;
}

const ids = async (store: Pick<Store, 'all'>) => (await store.all<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id);

/** A write whose function awaits (a timer) inside its transaction; `opened` resolves once its first row is in. */
function slowWrite(store: Store, id: string, ms: number): { opened: Promise<void>; done: Promise<void> } {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const done = store.write(async (tx) => {
    await tx.run('INSERT INTO t (id, n) VALUES (?, 1)', [id]);
    opened();
    await sleep(ms);
    await tx.run('UPDATE t SET n = 2 WHERE id = ?', [id]);
  });
  return { opened: open, done };
}

describe('the async store', () => {
  it.each([['in memory', false], ['on disk', true]])('a reader during an open transaction sees none of its rows, and all of them after the commit (%s)', async (_name, durable) => {
    const store = await openWithTable(durable ? stores.dirs.make() : null);
    const write = slowWrite(store, 'a', 50);
    await write.opened;
    // the transaction is open and waiting: the read waits for it, then sees the committed state only
    let readDone = false;
    const reading = store.all<{ id: string; n: number }>('SELECT id, n FROM t').then((rows) => ((readDone = true), rows));
    await sleep(20);
    expect(readDone).toBe(false);
    expect(await reading).toEqual([{ id: 'a', n: 2 }]);
    await write.done;
  });

  it('a reader during a transaction that rolls back never sees its rows', async () => {
    const store = await openWithTable();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const failing = store.write(async (tx) => {
      await tx.run("INSERT INTO t (id, n) VALUES ('ghost', 1)");
      opened();
      await sleep(20);
      throw new Error('changed its mind');
    });
    await open;
    const reading = store.get("SELECT id FROM t WHERE id = 'ghost'");
    await expect(failing).rejects.toThrow('changed its mind');
    expect(await reading).toBeUndefined();
  });

  it('two writes whose functions await run one after the other, with results as if serial', async () => {
    const store = await openWithTable(stores.dirs.make());
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('counter', 0)"));
    const events: string[] = [];
    // read-modify-write with an await in between: interleaved, both would read 0 and one increment would be lost
    const increment = (name: string) => store.write(async (tx: WriteTx) => {
      events.push(`${name} begins`);
      const row = await tx.get<{ n: number }>("SELECT n FROM t WHERE id = 'counter'");
      await sleep(15);
      await tx.run("UPDATE t SET n = ? WHERE id = 'counter'", [(row?.n ?? 0) + 1]);
      events.push(`${name} ends`);
      return row?.n;
    });
    const seen = await Promise.all([increment('A'), increment('B'), increment('C')]);
    expect(events).toEqual(['A begins', 'A ends', 'B begins', 'B ends', 'C begins', 'C ends']);
    expect(seen).toEqual([0, 1, 2]);
    expect((await store.get<{ n: number }>("SELECT n FROM t WHERE id = 'counter'"))?.n).toBe(3);
  });

  it('writes queued behind an awaiting one still share journal syncs', async () => {
    const store = await openWithTable(stores.dirs.make());
    const before = store.stats();
    const writes = Array.from({ length: 40 }, (_, i) => store.write(async (tx) => {
      await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', [`w${String(i).padStart(2, '0')}`, i]);
    }));
    await Promise.all(writes);
    const after = store.stats();
    expect(after.entries - before.entries).toBe(40);
    expect(after.syncs - before.syncs).toBeLessThan(40);
    expect(await ids(store)).toHaveLength(40);
  });

  it('a read through the store from the start of a transaction function fails at once', async () => {
    const store = await openWithTable();
    let failure: unknown = null;
    await store.write(async (tx) => {
      const inside = store.get('SELECT 1 AS x');
      await tx.run("INSERT INTO t (id, n) VALUES ('kept', 1)");
      failure = await inside.catch((err: unknown) => err);
    });
    expect(String(failure)).toMatch(/read or write through the store from inside a write\(\) transaction .*go through its tx/);
    expect(await ids(store)).toEqual(['kept']);
  });

  it('a read through the store after an await inside a transaction fails once it has waited lockWaitMs, and the write rolls back', async () => {
    const store = await openWithTable(null, 200);
    const start = performance.now();
    const write = store.write(async (tx) => {
      await tx.run("INSERT INTO t (id, n) VALUES ('lost', 1)");
      await store.get('SELECT 1 AS x'); // waits for its own transaction
    });
    await expect(write).rejects.toThrow(/ran no statement for 200 ms while this waited for it.*from inside a write\(\) transaction waits for that transaction: go through its tx/);
    expect(performance.now() - start).toBeGreaterThanOrEqual(190);
    expect(await ids(store)).toEqual([]);
    // the store goes on: the next write and read work
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('next', 1)"));
    expect(await ids(store)).toEqual(['next']);
  });

  it('a read from outside waits for a long transaction that keeps running statements, past lockWaitMs', async () => {
    // an import or a truncate in slices: it lets the loop turn between its statements for longer than
    // lockWaitMs, and a reader from another request waits for its commit instead of failing
    const store = await openWithTable(null, 200);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const write = store.write(async (tx) => {
      for (let i = 0; i < 12; i++) {
        await tx.run('INSERT INTO t (id, n) VALUES (?, ?)', [`row${String(i).padStart(2, '0')}`, i]);
        opened();
        await sleep(50);
      }
    });
    await open;
    const read = ids(store);
    await write;
    expect(await read).toHaveLength(12);
  });

  it('a write through the store after an await inside a transaction fails the same way, and the store goes on', async () => {
    const store = await openWithTable(null, 200);
    const write = store.write(async (tx) => {
      await tx.run("INSERT INTO t (id, n) VALUES ('outer', 1)");
      await store.write((inner) => inner.run("INSERT INTO t (id, n) VALUES ('inner', 1)"));
    });
    await expect(write).rejects.toThrow(/ran no statement for 200 ms while this waited for it.*from inside a write\(\) transaction waits for that transaction: go through its tx/);
    expect(await ids(store)).toEqual([]);
    // the abandoned turn was passed on: later writes are not stuck behind it
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('after', 1)"));
    expect(await ids(store)).toEqual(['after']);
  });

  it('a backup or checkpoint awaited from inside a transaction fails after lockWaitMs instead of waiting for itself', async () => {
    const store = await openWithTable(stores.dirs.make(), 150);
    for (const inner of [() => store.backup(), () => store.checkpoint()]) {
      const write = store.write(async (tx) => {
        await tx.run("INSERT INTO t (id, n) VALUES ('x', 1)");
        await inner();
      });
      await expect(write).rejects.toThrow(/ran no statement for 150 ms while this waited for it.*from inside a write\(\) transaction waits for that transaction: go through its tx/);
    }
    expect(await ids(store)).toEqual([]);
    expect((await store.backup()).bytes.byteLength).toBeGreaterThan(0);
  });

  it('a snapshot\'s reads see one committed state: a write asked for meanwhile commits after it', async () => {
    const store = await openWithTable();
    const count = async (db: Pick<Store, 'get'>) => (await db.get<{ n: number }>('SELECT count(*) AS n FROM t'))?.n;
    let writing: Promise<unknown> = Promise.resolve();
    const seen = await store.snapshot(async (db) => {
      const before = await count(db);
      writing = store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('during', 1)"));
      await sleep(20);
      return [before, await count(db)];
    });
    expect(seen).toEqual([0, 0]); // a list's page and its count agree
    await writing;
    expect(await count(store)).toBe(1);
  });

  it.each([
    ['a snapshot', 'a snapshot', (store: Store) => store.snapshot((db) => db.all('SELECT id FROM t'))],
    ['a backup', 'a snapshot', (store: Store) => store.backup()],
    ['a write', 'a snapshot', (store: Store) => store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('inner', 1)"))],
    ['a checkpoint', 'a snapshot', (store: Store) => store.checkpoint()],
    ['a snapshot', 'a backup', (store: Store) => store.snapshot((db) => db.all('SELECT id FROM t'))],
    ['a write', 'a backup', (store: Store) => store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('inner', 1)"))],
  ])('%s started from inside %s\'s own function (not through its reader) fails after lockWaitMs instead of waiting for the turn its caller holds; the store goes on', async (_inner, outer, inner) => {
    const store = await openWithTable(stores.dirs.make(), 150);
    const holding = (fn: (db: Pick<Store, 'all'>) => Promise<unknown>) => (outer === 'a snapshot' ? store.snapshot(fn) : store.backup(fn));
    const outcome = holding(async (db) => {
      await db.all('SELECT id FROM t');
      await inner(store);
    }).then(() => 'done', (err: unknown) => String(err));
    // a hang (the old wait for ever) fails here, not at the suite's timeout
    const settled = await Promise.race([outcome, sleep(10_000).then(() => 'still waiting after 10 s')]);
    expect(settled).toMatch(/read nothing for 150 ms while this waited for it.*from inside a snapshot or backup waits for it: read through the reader it is handed/);
    // nothing of the inner write is kept, and the turn was passed on: writes, snapshots and backups go on
    expect(await ids(store)).toEqual([]);
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('after', 1)"));
    expect(await store.snapshot((db) => ids(db))).toEqual(['after']);
    expect((await store.backup()).bytes.byteLength).toBeGreaterThan(0);
  });

  it('a write from outside waits for a snapshot that keeps reading, past lockWaitMs, and commits after it', async () => {
    // a slow list page, or a backup's reads: the snapshot works all along, so the wait for it is not
    // taken for one from inside it
    const store = await openWithTable(null, 200);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const seen = store.snapshot(async (db) => {
      const counts: number[] = [];
      for (let i = 0; i < 12; i++) {
        counts.push((await db.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n);
        opened();
        await sleep(50);
      }
      return counts;
    });
    await open;
    const writing = store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('waited', 1)"));
    expect(await seen).toEqual(Array(12).fill(0));
    await writing;
    expect(await ids(store)).toEqual(['waited']);
  });

  it('a backup taken while a transaction is open holds only committed rows', async () => {
    const store = await openWithTable(stores.dirs.make());
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('before', 1)"));
    const write = slowWrite(store, 'during', 30);
    await write.opened;
    const backup = store.backup(async (db) => await ids(db));
    await write.done;
    const { bytes, alongside } = await backup;
    // the backup waited for its turn: the transaction open when it was asked is in it, whole, and what
    // `alongside` read is what the copy holds
    expect(alongside).toEqual(['before', 'during']);
    const SQL = await loadSqlJs();
    const copy = new SQL.Database(bytes);
    try {
      expect(copy.exec('SELECT id, n FROM t ORDER BY id')[0].values).toEqual([['before', 1], ['during', 2]]);
    } finally {
      copy.close();
    }
  });
});

describe('column names of cached statements (statements.ts columnNames)', () => {
  it('a `SELECT *` read again after a schema change returns the new columns; a statement naming its columns keeps its names', async () => {
    const store = await openWithTable();
    await store.write((tx) => tx.run("INSERT INTO t (id, n) VALUES ('a', 1)"));
    const star = 'SELECT * FROM t WHERE id = ?';
    const named = 'SELECT t."n", t."id" FROM t WHERE id = ?';
    expect(await store.get(star, ['a'])).toEqual({ id: 'a', n: 1 });
    expect(await store.all(star, ['a'])).toEqual([{ id: 'a', n: 1 }]);
    expect(await store.get(named, ['a'])).toEqual({ n: 1, id: 'a' });
    await store.write(async (tx) => {
      await tx.run("ALTER TABLE t ADD COLUMN label TEXT DEFAULT 'x' NOT NULL");
      await tx.run('ALTER TABLE t RENAME COLUMN n TO m');
    });
    // the same statements, prepared before the change: SQLite prepares them again
    expect(await store.get(star, ['a'])).toEqual({ id: 'a', m: 1, label: 'x' });
    expect(await store.all(star, ['a'])).toEqual([{ id: 'a', m: 1, label: 'x' }]);
    await expect(store.get(named, ['a'])).rejects.toThrow(/no such column/);
    expect(await store.get('SELECT t."m", t."label" FROM t WHERE id = ?', ['a'])).toEqual({ m: 1, label: 'x' });
  });
});
