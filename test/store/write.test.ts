// write(): one transaction, journaled once it commits, acknowledged once synced; commits that arrive
// together share a sync. (Writes taking turns and reads waiting for them: async-store.test.ts.)
import { describe, expect, it } from 'vitest';
import type { Store, WriteTx } from '../../server/store/db.js';
import { crashCopy, useStores } from '../fixtures/store-helpers.js';

const stores = useStores();
const dirs = stores.dirs;

/** Opens a store holding table t. */
async function openAt(dir: string | null): Promise<Store> {
  const store = await stores.openAt(dir);
  if (await store.get(`SELECT 1 AS x FROM sqlite_master WHERE name = 't'`) === undefined) {
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)'));
  }
  return store;
}

/** Reopens a crash copy of the folder: what the disk holds right now. */
async function onDisk(store: Store): Promise<Store> {
  const copy = dirs.make();
  crashCopy(store.dir ?? '', copy);
  return openAt(copy);
}

const insert = (id: string) => (tx: WriteTx) => tx.run('INSERT INTO t VALUES (?, ?)', [id, `body ${id}`]);
const count = async (store: Store) => (await store.get<{ n: number }>('SELECT count(*) AS n FROM t'))?.n;

describe('write()', () => {
  it.each<[string, (tx: WriteTx) => unknown, RegExp]>([
    ['throws', async (tx) => { await insert('x')(tx); throw new Error('validation failed'); }, /validation failed/],
    ['runs a failing statement', async (tx) => { await insert('x')(tx); await tx.run('INSERT INTO nope VALUES (1)'); }, /no such table: nope/],
    ['rejects after an await', async (tx) => { await insert('x')(tx); await new Promise((done) => setTimeout(done, 5)); throw new Error('later'); }, /later/],
  ])('rolls back and journals nothing when the callback %s', async (_name, fn, message) => {
    const store = await openAt(dirs.make());
    const before = store.stats();
    await expect(store.write(fn)).rejects.toThrow(message);
    expect(await count(store)).toBe(0);
    expect(store.stats().entries).toBe(before.entries);
    await store.write(insert('y'));
    expect(await count(await onDisk(store))).toBe(1);
  });

  it('refuses a nested write and a checkpoint called from the transaction function\'s synchronous start', async () => {
    const store = await openAt(dirs.make());
    const outcome = (p: Promise<unknown>) => p.then(() => 'resolved', (error: Error) => error.message);
    let nested = Promise.resolve('not called');
    let checkpoint = Promise.resolve('not called');
    await store.write(async (tx) => {
      const outer = insert('outer')(tx);
      nested = outcome(store.write(insert('inner')));
      checkpoint = outcome(store.checkpoint());
      await outer;
    });
    expect(await nested).toMatch(/inside another write/);
    expect(await checkpoint).toMatch(/inside a write/);
    expect(await store.all('SELECT id FROM t')).toEqual([{ id: 'outer' }]);
  });

  it('journals nothing for a write that only reads, and journals a read that changed rows', async () => {
    const store = await openAt(dirs.make());
    await store.write(insert('a'));
    const before = store.stats();
    expect(await store.write((tx) => tx.get('SELECT id FROM t'))).toEqual({ id: 'a' });
    expect(store.stats()).toEqual(before);

    const returned = await store.write((tx) => tx.get('INSERT INTO t VALUES (?, ?) RETURNING id', ['b', 'via get']));
    expect(returned).toEqual({ id: 'b' });
    expect(store.stats().entries).toBe(before.entries + 1);
    expect(await (await onDisk(store)).all('SELECT id, body FROM t ORDER BY id')).toEqual([
      { id: 'a', body: 'body a' },
      { id: 'b', body: 'via get' },
    ]);
  });

  it('a write read through tx.get is journaled by its own count of changes: one that changed nothing is not, one through an INSTEAD OF trigger (not counted as its own) is', async () => {
    const store = await openAt(dirs.make());
    await store.write(insert('a'));
    const before = store.stats();
    expect(await store.write((tx) => tx.get('DELETE FROM t WHERE id = ? RETURNING id', ['none']))).toBeUndefined();
    expect(await store.write((tx) => tx.get('UPDATE t SET body = ? WHERE id = ?', ['x', 'none']))).toBeUndefined();
    expect(store.stats().entries).toBe(before.entries);
    await store.write(async (tx) => {
      await tx.run('CREATE VIEW v AS SELECT id, body FROM t');
      await tx.run('CREATE TRIGGER v_insert INSTEAD OF INSERT ON v BEGIN INSERT INTO t VALUES (new.id, new.body); END');
    });
    // the view's INSERT changes no row of its own (SQLite counts none): its trigger wrote one to t
    await store.write((tx) => tx.get('INSERT INTO v VALUES (?, ?)', ['b', 'through the view']));
    expect(await (await onDisk(store)).all('SELECT id, body FROM t ORDER BY id')).toEqual([
      { id: 'a', body: 'body a' },
      { id: 'b', body: 'through the view' },
    ]);
  });

  it('a write read through tx.get into a TEMP view whose TEMP INSTEAD OF trigger writes a table reaches the disk too (temp triggers are not in sqlite_master)', async () => {
    const store = await openAt(dirs.make());
    await store.write(insert('a'));
    await store.write(async (tx) => {
      await tx.run('CREATE TEMP VIEW tv AS SELECT id, body FROM t');
      await tx.run('CREATE TEMP TRIGGER tv_insert INSTEAD OF INSERT ON tv BEGIN INSERT INTO t VALUES (new.id, new.body); END');
    });
    await store.write((tx) => tx.get('INSERT INTO tv VALUES (?, ?)', ['b', 'through the temp view']));
    expect(await store.all('SELECT id, body FROM t ORDER BY id')).toEqual([
      { id: 'a', body: 'body a' },
      { id: 'b', body: 'through the temp view' },
    ]);
    expect(await (await onDisk(store)).all('SELECT id, body FROM t ORDER BY id')).toEqual([
      { id: 'a', body: 'body a' },
      { id: 'b', body: 'through the temp view' },
    ]);
  });

  it('a SELECT read inside a write is not journaled and changes nothing, even with a statement after it (only the first statement runs)', async () => {
    const store = await openAt(dirs.make());
    await store.write(insert('a'));
    const before = store.stats();
    // a read's count of changed rows is not read for a SELECT (transaction.ts): this holds only because
    // nothing after the SELECT runs
    await store.write(async (tx) => {
      expect(await tx.get("SELECT id FROM t; INSERT INTO t VALUES ('x', 'tail')")).toEqual({ id: 'a' });
      expect(await tx.all("  select id from t; DELETE FROM t")).toEqual([{ id: 'a' }]);
    });
    expect(store.stats()).toEqual(before);
    expect(await store.all('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'a' }]);
    expect(await (await onDisk(store)).all('SELECT id FROM t ORDER BY id')).toEqual([{ id: 'a' }]);
  });

  it('a SELECT through a table-valued PRAGMA that writes (pragma_optimize runs ANALYZE) is refused, inside a write and outside: memory never holds what the journal does not', async () => {
    const store = await openAt(dirs.make());
    for (let i = 0; i < 40; i++) await store.write(insert(`r${i}`));
    await store.write((tx) => tx.run('CREATE INDEX t_body ON t (body)'));
    const schema = (s: Store) => s.all("SELECT name FROM sqlite_master ORDER BY name");
    // a SELECT changes no row SQLite counts, so neither the count of changed rows nor the statement's
    // first word sees this one create sqlite_stat1 and write it: it stayed in memory, unjournaled, and a
    // later journaled statement on it failed at replay
    const refusals: string[] = [];
    for (const sql of ['SELECT * FROM pragma_optimize(0x10002)', ' select * from main."PRAGMA_OPTIMIZE"', 'SELECT (SELECT 1 FROM pragma_optimize)']) {
      await store.write((tx) => tx.all(sql)).then(() => refusals.push('run'), (err: Error) => refusals.push(err.message));
      expect(await schema(store)).toEqual(await schema(await onDisk(store)));
      await store.all(sql).then(() => refusals.push('run'), (err: Error) => refusals.push(err.message));
      expect(await schema(store)).toEqual(await schema(await onDisk(store)));
    }
    expect(refusals).toEqual(Array(6).fill('pragma_optimize is not run as a table (it writes statistics SQLite does not count as changes): use PRAGMA optimize'));
    // the statement form is journaled as any statement that is not a row statement
    await store.write((tx) => tx.run('PRAGMA optimize(0x10002)'));
    expect(await schema(store)).toEqual(await schema(await onDisk(store)));
  });

  it.each([['on disk', true], ['in memory', false]])('refuses a parameter the journal cannot carry before the statement runs (%s)', async (_name, durable) => {
    const store = await openAt(durable ? dirs.make() : null);
    const refused: string[] = [];
    await store.write(async (tx) => {
      for (const bad of [true, 10n, new Uint8Array([1])]) {
        try {
          await tx.run('INSERT INTO t VALUES (?, ?)', [`bad ${typeof bad}`, bad as unknown as string]);
        } catch (error) {
          refused.push((error as Error).message);
        }
      }
      await insert('good')(tx);
    });
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatch(/string, a number or null/);
    expect(await store.all('SELECT id FROM t')).toEqual([{ id: 'good' }]);
    if (durable) expect(await (await onDisk(store)).all('SELECT id FROM t')).toEqual([{ id: 'good' }]);
  });

  it('groups concurrent commits into fewer syncs than writes', async () => {
    const store = await openAt(dirs.make());
    const before = store.stats();
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.write(insert(`g${i}`))));
    const after = store.stats();
    expect(after.entries - before.entries).toBe(50);
    expect(after.syncs - before.syncs).toBeGreaterThanOrEqual(1);
    expect(after.syncs - before.syncs).toBeLessThan(50);
    expect(await count(await onDisk(store))).toBe(50);
  });

  it('refuses writes after close', async () => {
    const store = await openAt(dirs.make());
    await store.close();
    await expect(store.write(insert('late'))).rejects.toThrow(/closed/);
  });

  it('works the same in memory, without files or counters', async () => {
    const store = await openAt(null);
    expect(store.dir).toBeNull();
    await Promise.all([store.write(insert('m1')), store.write(insert('m2'))]);
    await store.checkpoint();
    expect(await count(store)).toBe(2);
    expect(store.stats()).toEqual({ entries: 0, syncs: 0, journalBytes: 0, journalSize: 0, checkpoints: 0, replayed: 0 });
  });
});
