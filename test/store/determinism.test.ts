// A write may not use what SQLite makes up as it runs (store/determinism.ts): random(), randomblob(),
// 'now' in any form, 'localtime'/'utc', changes()/total_changes()/last_insert_rowid(), sqlite_version(). The journal
// replays statements, so memory and the disk after a restart would differ. Each is refused with a 400
// naming it wherever it is reached from (the statement itself, a trigger, a column's DEFAULT, a view, a
// bound 'now'), the write is refused whole even when its caller catches the refusal, and a SELECT (inside
// a write or not) uses them freely. A real data folder, reopened.
import { describe, expect, it } from 'vitest';
import type { Store, WriteTx } from '../../server/store/db.js';
import { ApiError } from '../../server/errors.js';
import { useStores } from '../fixtures/store-helpers.js';

const stores = useStores();

async function opened(): Promise<Store> {
  const store = await stores.openAt(stores.dirs.make());
  await store.write(async (tx) => {
    await tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v)');
    await tx.run('CREATE TABLE stamped (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP)');
    await tx.run('CREATE TABLE drawn (id INTEGER PRIMARY KEY, v INTEGER DEFAULT (random()))');
    await tx.run('CREATE TABLE fired (id INTEGER PRIMARY KEY, v)');
    await tx.run('CREATE TRIGGER fire AFTER INSERT ON fired BEGIN UPDATE fired SET v = hex(randomblob(4)) WHERE id = NEW.id; END');
    await tx.run("CREATE VIEW lucky AS SELECT random() AS r, strftime('%s', 'now') AS s");
  });
  return store;
}

/** Everything the database holds, table by table. */
async function contents(store: Store): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const table of ['t', 'stamped', 'drawn', 'fired']) out[table] = await store.all(`SELECT * FROM ${table} ORDER BY id`);
  return out;
}

async function reopened(store: Store): Promise<Store> {
  const dir = store.dir!;
  await store.close();
  return stores.openAt(dir);
}

async function refusal(store: Store, fn: (tx: WriteTx) => Promise<unknown>): Promise<ApiError> {
  const err = await store.write(fn).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const LOCAL = "'localtime' or 'utc' (the machine's time zone)";
const NOW = "'now' (a date function's 'now', CURRENT_TIME, CURRENT_DATE or CURRENT_TIMESTAMP)";

describe('a write that uses what SQLite makes up as it runs', () => {
  it('is refused with a 400 naming it, whichever way it reaches it; memory and the reopened folder agree', async () => {
    let store = await opened();
    await store.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['kept before']));
    const cases: [string, (tx: WriteTx) => Promise<unknown>][] = [
      ['random()', (tx) => tx.run('INSERT INTO t (v) VALUES (random())')],
      ['randomblob()', (tx) => tx.run('INSERT INTO t (v) VALUES (hex(randomblob(16)))')],
      [NOW, (tx) => tx.run("INSERT INTO t (v) VALUES (datetime('now'))")],
      [NOW, (tx) => tx.run('INSERT INTO t (v) VALUES (CURRENT_TIMESTAMP)')],
      [NOW, (tx) => tx.run('INSERT INTO t (v) VALUES (CURRENT_DATE || CURRENT_TIME)')],
      [NOW, (tx) => tx.run("INSERT INTO t (v) VALUES (strftime('%s', 'now'))")],
      [NOW, (tx) => tx.run('INSERT INTO t (v) VALUES (unixepoch())')],
      [NOW, (tx) => tx.run("UPDATE t SET v = julianday('now')")],
      [NOW, (tx) => tx.run('INSERT INTO t (v) VALUES (date(?))', ['now'])], // bound, not in the text
      [LOCAL, (tx) => tx.run("INSERT INTO t (v) VALUES (datetime('2024-01-01 12:00:00', 'localtime'))")],
      [LOCAL, (tx) => tx.run("INSERT INTO t (v) VALUES (time(?, 'utc'))", ['12:00'])],
      [NOW, (tx) => tx.run('INSERT INTO stamped (id) VALUES (1)')], // a column's DEFAULT
      ['random()', (tx) => tx.run('INSERT INTO drawn (id) VALUES (1)')],
      ['randomblob()', (tx) => tx.run("INSERT INTO fired (v) VALUES ('x')")], // a trigger
      ['random()', (tx) => tx.run('INSERT INTO t (v) SELECT r FROM lucky')], // a view
      ['random()', (tx) => tx.all('INSERT INTO t (v) VALUES (random()) RETURNING v')], // a read that writes
      ['changes()', (tx) => tx.run('INSERT INTO t (v) VALUES (changes())')],
      ['total_changes()', (tx) => tx.run('INSERT INTO t (v) VALUES (total_changes())')],
      ['last_insert_rowid()', (tx) => tx.run('INSERT INTO t (v) VALUES (last_insert_rowid())')],
      ['sqlite_version()', (tx) => tx.run('INSERT INTO t (v) VALUES (sqlite_version())')],
      ['changes()', (tx) => tx.run('INSERT INTO t (v) VALUES ("changes"())')], // a quoted name is called too
      ['total_changes()', (tx) => tx.run("INSERT INTO t (v) VALUES ('a' || [total_changes] ())")],
    ];
    for (const [name, fn] of cases) {
      const err = await refusal(store, fn);
      expect(err.status, name).toBe(400);
      expect(err.message, name).toBe(`A statement that writes cannot use ${name}: its value is made up as the statement runs and the journal replays statements, so it would differ after a restart. Bind a value made in JavaScript instead (a SELECT may use it).`);
    }
    const before = await contents(store);
    expect(before).toEqual({ t: [{ id: 1, v: 'kept before' }], stamped: [], drawn: [], fired: [] });
    store = await reopened(store);
    expect(await contents(store)).toEqual(before);
  });

  it('caught by its caller, it still refuses the whole write: nothing it did stays in memory', async () => {
    let store = await opened();
    for (const sql of ["INSERT INTO t (v) VALUES (datetime('now'))", 'INSERT INTO t (v) VALUES (random())']) {
      const err = await refusal(store, async (tx) => {
        await tx.run('INSERT INTO t (v) VALUES (?)', ['with it']);
        await tx.run(sql).catch(() => undefined);
        await tx.run('INSERT INTO t (v) VALUES (?)', ['after it']);
      });
      expect(err.message).toMatch(/^A statement that writes cannot use (random\(\)|'now')/);
    }
    expect(await contents(store)).toEqual({ t: [], stamped: [], drawn: [], fired: [] });
    store = await reopened(store);
    expect(await contents(store)).toEqual({ t: [], stamped: [], drawn: [], fired: [] });
  });

  it('a SELECT uses them freely, inside a write and outside; what it read, bound, replays as it was', async () => {
    let store = await opened();
    const read = "SELECT random() AS r, typeof(random()) AS type, length(randomblob(16)) AS n, datetime('now') AS now, CURRENT_TIMESTAMP AS stamp, changes() AS c, datetime('2024-01-01', 'localtime') AS l FROM lucky";
    const outside = await store.get<Record<string, unknown>>(read);
    expect(outside).toMatchObject({ type: 'integer', n: 16 });
    expect(outside!.now).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(outside!.stamp).toBe(outside!.now);
    await store.write(async (tx) => {
      const row = await tx.get<{ r: number; now: string }>(read);
      await tx.run('INSERT INTO t (v) VALUES (?), (?)', [row!.r, row!.now]);
    });
    const before = await contents(store);
    expect((before as { t: unknown[] }).t).toHaveLength(2);
    store = await reopened(store);
    expect(await contents(store)).toEqual(before);
    // a read that is not a SELECT but changed nothing is no write either, in memory as on disk
    const memory = await stores.openAt(null);
    await memory.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v)'));
    for (const s of [store, memory]) {
      const row = await s.write((tx) => tx.get<{ n: string }>("WITH x AS (SELECT datetime('now') AS n, random() AS r) SELECT n FROM x"));
      expect(row!.n).toMatch(/^\d{4}-/);
      expect((await refusal(s, (tx) => tx.all("WITH x AS (SELECT random() AS r) INSERT INTO t (v) SELECT r FROM x RETURNING v"))).status).toBe(400);
    }
    // their names in a text, a comment, or as a table's are no calls
    await store.write(async (tx) => {
      await tx.run('CREATE TABLE changes (id INTEGER PRIMARY KEY, v)');
      await tx.run("INSERT INTO changes (v) VALUES ('see changes() and random()') -- last_insert_rowid()");
      await tx.run('INSERT INTO main.changes (v) VALUES (?)', ['/* sqlite_version() */']);
      await tx.run('UPDATE "changes" SET v = v WHERE id IN (SELECT id FROM [changes])');
    }).catch((err: Error) => expect.fail(err.message));
    // random() draws anew each row, as SQLite's does (not one value for the statement)
    const draws = await store.all<{ r: number }>('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT random() AS r FROM c');
    expect(new Set(draws.map((d) => d.r)).size).toBe(50);
  });
});
