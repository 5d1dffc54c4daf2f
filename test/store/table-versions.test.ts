// Store.tablesVersion (store/table-versions.ts): which tables a committed write may have changed, read
// from the statements it journaled. A write to one table leaves the others' version as it was; schema
// statements, a database replaced, a trigger, a statement of unknown effect and an in-memory store (no
// statements recorded) move every table's.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../server/store/db.js';
import type { Store } from '../../server/store/db.js';
import { crashCopy, useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

async function tables(store: Store): Promise<void> {
  await store.write(async (tx) => {
    await tx.run('CREATE TABLE "a" (id TEXT PRIMARY KEY, n INTEGER)');
    await tx.run('CREATE TABLE "b" (id TEXT PRIMARY KEY, n INTEGER)');
    await tx.run('CREATE TABLE "Other ""one""" (id TEXT PRIMARY KEY)');
  });
}

describe('table versions', () => {
  it('move for the tables a write changed, and only those', async () => {
    const store = await openAt(dirs.make());
    await tables(store);
    const v = (...t: string[]) => store.tablesVersion!(t);
    const [a, b] = [v('a'), v('b')];
    await store.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['1', 1]));
    expect(v('a')).toBeGreaterThan(a);
    expect(v('b')).toBe(b);
    expect(v('B', 'other "one"')).toBe(b); // names as SQLite matches them, quotes included
    const a1 = v('a');
    await store.write((tx) => tx.run('UPDATE OR IGNORE b SET n = 2')); // a plain name too (a hook's SQL)
    await store.write((tx) => tx.get('DELETE FROM "Other ""one""" WHERE id = ? RETURNING id', ['none'])); // changed nothing: not journaled
    expect(v('a')).toBe(a1);
    expect(v('b')).toBeGreaterThan(b);
    expect(v('other "one"')).toBe(b);
    // a write that rolls back changes nothing
    const b1 = v('b');
    await expect(store.write(async (tx) => {
      await tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['x', 1]);
      throw new Error('no');
    })).rejects.toThrow('no');
    expect(v('b')).toBe(b1);
    // a read-only transaction neither
    await store.write((tx) => tx.get('SELECT count(*) AS n FROM "a"'));
    expect([v('a'), v('b')]).toEqual([a1, b1]);
  });

  it("rows versions move for writes that may change or remove a table's rows, not for new rows alone", async () => {
    const store = await openAt(dirs.make());
    await tables(store);
    const rows = (...t: string[]) => store.rowsVersion!(t);
    let a = rows('a');
    const b = rows('b');
    await store.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['1', 1]));
    await store.write((tx) => tx.run('INSERT OR IGNORE INTO a (id, n) VALUES (?, ?), (?, ?)', ['1', 9, '2', 2]));
    await store.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?) ON CONFLICT DO NOTHING', ['2', 9]));
    expect(rows('a')).toBe(a);
    expect(store.tablesVersion!(['a'])).toBeGreaterThan(a); // the table changed: new rows
    for (const [sql, params] of [
      ['UPDATE "a" SET n = 3 WHERE id = ?', ['1']],
      ['DELETE FROM "a" WHERE id = ?', ['2']],
      ['INSERT OR REPLACE INTO "a" (id, n) VALUES (?, ?)', ['1', 4]],
      ['REPLACE INTO "a" (id, n) VALUES (?, ?)', ['1', 5]],
      ['INSERT INTO "a" (id, n) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET n = excluded.n', ['1', 6]],
    ] as const) {
      await store.write((tx) => tx.run(sql, [...params]));
      expect(rows('a'), sql).toBeGreaterThan(a);
      a = rows('a');
    }
    expect(await store.get('SELECT n FROM "a" WHERE id = ?', ['1'])).toEqual({ n: 6 });
    expect(rows('b')).toBe(b);
    // what moves every table moves its rows too
    await store.write((tx) => tx.run('CREATE INDEX "a_n" ON "a" (n)'));
    expect(rows('b')).toBeGreaterThan(b);
  });

  it('a version except some tables moves for writes to any other table, not for writes to those alone', async () => {
    const store = await openAt(dirs.make());
    await tables(store);
    const skipped = ['A']; // names as SQLite matches them
    const v0 = store.versionExcept!(skipped);
    await store.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['1', 1]));
    await store.write((tx) => tx.run('UPDATE a SET n = 2'));
    expect(store.versionExcept!(skipped)).toBe(v0);
    expect(store.versionExcept!([])).toBeGreaterThan(v0);
    await store.write(async (tx) => {
      await tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['2', 1]);
      await tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['1', 1]);
    });
    const v1 = store.versionExcept!(skipped);
    expect(v1).toBeGreaterThan(v0);
    await store.write((tx) => tx.run('CREATE INDEX "a_n" ON "a" (n)'));
    expect(store.versionExcept!(skipped)).toBeGreaterThan(v1);
  });

  it('schema statements move every table; a trigger makes every later write move every table, also after a reopen', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await tables(store);
    const v = (...t: string[]) => store.tablesVersion!(t);
    const a = v('a');
    await store.write((tx) => tx.run('CREATE INDEX "b_n" ON "b" (n)'));
    expect(v('a')).toBeGreaterThan(a);
    // writes to "b" now also change "a"
    await store.write((tx) => tx.run('CREATE TRIGGER "copy" AFTER INSERT ON "b" BEGIN INSERT INTO "a" (id, n) VALUES (new.id, new.n); END'));
    const a1 = v('a');
    await store.write((tx) => tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['t', 7]));
    expect(await store.get('SELECT n FROM "a" WHERE id = ?', ['t'])).toEqual({ n: 7 });
    expect(v('a')).toBeGreaterThan(a1);
    await store.close();
    const again = await openAt(dir);
    const a2 = again.tablesVersion!(['a']);
    await again.write((tx) => tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['u', 8]));
    expect(again.tablesVersion!(['a'])).toBeGreaterThan(a2);
  });

  it('a statement of another shape moves every table, then and at every write after it', async () => {
    const store = await openAt(dirs.make());
    await tables(store);
    const v = (...t: string[]) => store.tablesVersion!(t);
    const a = v('a');
    await store.write((tx) => tx.run('INSERT INTO main.b (id, n) VALUES (?, ?)', ['m', 1])); // a schema named: not taken apart
    expect(v('a')).toBeGreaterThan(a);
    const a0 = v('a');
    await store.write((tx) => tx.run('WITH x AS (SELECT 1 AS n) INSERT INTO "b" (id, n) SELECT \'w\', n FROM x'));
    expect(v('a')).toBeGreaterThan(a0);
    expect(v('a')).toBeGreaterThan(a);
    const a1 = v('a');
    await store.write((tx) => tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['v', 1]));
    expect(v('a')).toBeGreaterThan(a1);
  });

  it('a schema-qualified name spaced around its dot, and an upsert whose DO and UPDATE a comment parts, are not taken for writes to another table or new rows alone (a hook\'s SQL)', async () => {
    const store = await openAt(dirs.make());
    await tables(store);
    const v = (...t: string[]) => store.tablesVersion!(t);
    const rows = (...t: string[]) => store.rowsVersion!(t);
    await store.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['1', 1]));
    const [a, ra] = [v('a'), rows('a')];
    // SQLite reads `main . "a"` as main."a": this write removes a row of "a", not of a table "main"
    await store.write((tx) => tx.run('DELETE FROM main . "a" WHERE id = ?', ['1']));
    expect(await store.get('SELECT n FROM "a" WHERE id = ?', ['1'])).toBeUndefined();
    expect(v('a')).toBeGreaterThan(a);
    expect(rows('a')).toBeGreaterThan(ra);
    // a comment before the dot too (a store of its own: the write above stopped this one's tracking)
    const commented = await openAt(dirs.make());
    await tables(commented);
    await commented.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['2', 2]));
    const [a2, ra2] = [commented.tablesVersion!(['a']), commented.rowsVersion!(['a'])];
    await commented.write((tx) => tx.run('DELETE FROM main /* the schema */ . "a" WHERE id = ?', ['2']));
    expect(await commented.get('SELECT n FROM "a" WHERE id = ?', ['2'])).toBeUndefined();
    expect(commented.tablesVersion!(['a'])).toBeGreaterThan(a2);
    expect(commented.rowsVersion!(['a'])).toBeGreaterThan(ra2);

    const other = await openAt(dirs.make());
    await tables(other);
    await other.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?)', ['1', 1]));
    const r0 = other.rowsVersion!(['a']);
    await other.write((tx) => tx.run('INSERT INTO "a" (id, n) VALUES (?, ?) ON CONFLICT (id) DO/* an upsert */UPDATE SET n = excluded.n', ['1', 2]));
    expect(await other.get('SELECT n FROM "a" WHERE id = ?', ['1'])).toEqual({ n: 2 });
    expect(other.rowsVersion!(['a'])).toBeGreaterThan(r0);
  });

  it('a TEMP trigger, made again by replay when the store reopens after a crash, makes every write move every table too', async () => {
    const dir = dirs.make();
    const store = await openAt(dir);
    await tables(store);
    await store.write((tx) => tx.run('CREATE TEMP TRIGGER "copy" AFTER INSERT ON main."b" BEGIN INSERT INTO main."a" (id, n) VALUES (new.id, new.n); END'));
    const copy = dirs.make();
    crashCopy(dir, copy); // a crash: the journal's CREATE TEMP TRIGGER is replayed, the trigger exists again
    const again = await openAt(copy);
    const a = again.tablesVersion!(['a']);
    await again.write((tx) => tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['t', 7]));
    expect(await again.get('SELECT n FROM "a" WHERE id = ?', ['t'])).toEqual({ n: 7 });
    expect(again.tablesVersion!(['a'])).toBeGreaterThan(a);
  });

  it('in memory (no statements recorded) every write moves every table', async () => {
    const store = await openStore({ dir: null });
    await tables(store);
    const a = store.tablesVersion!(['a']);
    await store.write((tx) => tx.run('INSERT INTO "b" (id, n) VALUES (?, ?)', ['1', 1]));
    expect(store.tablesVersion!(['a'])).toBeGreaterThan(a);
    await store.close();
  });
});
