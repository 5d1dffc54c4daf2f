// A view or trigger running pragma_optimize (which writes statistics SQLite does not count as changes)
// made outside Deskbase: new SQL naming it is refused (statements.ts; test/store/write.test.ts), and a
// database brought in whole is checked too: a restore's candidate is refused naming the object
// (restore.ts inspectDatabase; over HTTP: test/security/imports.test.ts), and a data folder that holds
// one opens with it dropped in a journaled write (db.ts openStore), its SQL logged.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUARD_FUNCTION } from '../../server/filter/guard.js';
import { loadSqlJs } from '../../server/store/db.js';
import type { Store } from '../../server/store/db.js';
import { crashCopy, segmentFiles, useStores } from '../fixtures/store-helpers.js';

const stores = useStores();

/** Statements no Deskbase path runs (they name pragma_optimize), made on the database file directly. */
const WRITING = [
  'CREATE VIEW stats AS SELECT * FROM pragma_optimize(0x10002)',
  `CREATE TRIGGER "t optimised" AFTER INSERT ON t BEGIN SELECT * FROM main."PRAGMA_OPTIMIZE"; END`,
];

/** Views Deskbase's own schemas have: over its SQL guard (every view collection) and a read-only table-valued pragma. */
const KEPT = [
  `CREATE VIEW guarded AS SELECT id FROM t WHERE (${GUARD_FUNCTION}() OR t._rowid_)`,
  `CREATE VIEW columns AS SELECT name FROM pragma_table_info('t')`,
];

/**
 * A data folder whose data.db (no journal) holds Deskbase's system tables, table t with 40 rows and an
 * index (so that ANALYZE has something to write), the views of KEPT and the statements `extra`.
 */
async function folderWith(extra: string[]): Promise<string> {
  const dir = stores.dirs.make();
  const store = await stores.openAt(dir);
  await store.write(async (tx) => {
    for (const table of ['_collections', '_sessions', '_params']) await tx.run(`CREATE TABLE ${table} (id TEXT PRIMARY KEY)`);
    await tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)');
    await tx.run('CREATE INDEX t_body ON t (body)');
    for (let i = 0; i < 40; i++) await tx.run('INSERT INTO t VALUES (?, ?)', [`r${i}`, `body ${i % 3}`]);
    for (const sql of KEPT) await tx.run(sql);
  });
  await store.close();
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(join(dir, 'data.db')));
  for (const sql of extra) db.run(sql);
  writeFileSync(join(dir, 'data.db'), db.export());
  db.close();
  for (const segment of segmentFiles(dir)) rmSync(segment);
  return dir;
}

const schema = (store: Store) => store.all<{ type: string; name: string }>("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name");

describe('views and triggers running pragma_optimize in a database brought in whole', () => {
  it('a restore candidate holding them is refused, naming each', async () => {
    const dir = await folderWith(WRITING);
    const store = await stores.openAt(stores.dirs.make());
    await expect(store.inspect(readFileSync(join(dir, 'data.db')))).rejects.toThrow(
      'data.db in the archive has trigger "t optimised", view "stats" running pragma_optimize',
    );
    // Deskbase's own views pass
    (await store.inspect(readFileSync(join(await folderWith([]), 'data.db')))).close();
  });

  it('a data folder holding them opens with them dropped (journaled, their SQL logged); views over the SQL guard and read-only pragmas stay and answer', async () => {
    const dir = await folderWith(WRITING);
    const lines: string[] = [];
    const store = await stores.openAt(dir, { log: (line) => void lines.push(line) });
    store.defineFunction(GUARD_FUNCTION, () => 1);
    expect(await schema(store)).not.toContainEqual({ type: 'view', name: 'stats' });
    expect((await schema(store)).filter((o) => o.type !== 'table')).toEqual([
      { type: 'index', name: 't_body' },
      { type: 'view', name: 'columns' },
      { type: 'view', name: 'guarded' },
    ]);
    expect(lines).toEqual([
      expect.stringMatching(/^store: dropped trigger "t optimised": it ran pragma_optimize, .*Its SQL was: CREATE TRIGGER "t optimised" AFTER INSERT ON t BEGIN SELECT \* FROM main\."PRAGMA_OPTIMIZE"; END$/),
      expect.stringMatching(/^store: dropped view "stats": .*Its SQL was: CREATE VIEW stats AS SELECT \* FROM pragma_optimize\(0x10002\)$/),
    ]);
    expect((await store.all('SELECT id FROM guarded')).length).toBe(40);
    expect(await store.all('SELECT name FROM columns')).toEqual([{ name: 'id' }, { name: 'body' }]);
    // a write that would have fired the trigger: memory and the disk agree (no sqlite_stat1 in either)
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['new', 'body']));
    const everything = (s: Store) => s.all("SELECT type, name FROM sqlite_master ORDER BY type, name");
    const copy = stores.dirs.make();
    crashCopy(dir, copy);
    const reopened = await stores.openAt(copy, { log: (line) => void lines.push(line) });
    expect(await everything(reopened)).toEqual(await everything(store));
    expect(await everything(store)).not.toContainEqual({ type: 'table', name: 'sqlite_stat1' });
    expect(lines).toHaveLength(2); // nothing left to drop
  });

  it('why not PRAGMA trusted_schema = OFF: it refuses pragma_optimize in a view, but also every view over Deskbase\'s own SQL functions (sql.js registers them without SQLITE_INNOCUOUS) and over read-only pragmas', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database(readFileSync(join(await folderWith([WRITING[0]]), 'data.db')));
    db.create_function(GUARD_FUNCTION, () => 1);
    db.run('PRAGMA trusted_schema = OFF');
    const outcome = (sql: string) => {
      try {
        db.exec(sql);
        return 'ran';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(outcome('SELECT * FROM stats')).toBe('unsafe use of virtual table "pragma_optimize"');
    expect(outcome('SELECT * FROM guarded')).toBe(`unsafe use of ${GUARD_FUNCTION}()`);
    expect(outcome('SELECT * FROM columns')).toBe('unsafe use of virtual table "pragma_table_info"');
    db.close();
  });
});

describe('schema text written by hand (PRAGMA writable_schema)', () => {
  it('is refused: a view edited in sqlite_master to run pragma_optimize would escape the refusal of new SQL naming it, and a SELECT on it would write statistics no journal entry replays', async () => {
    const store = await stores.openAt(stores.dirs.make());
    await store.write(async (tx) => {
      await tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)');
      await tx.run('CREATE INDEX t_body ON t (body)');
      for (let i = 0; i < 40; i++) await tx.run('INSERT INTO t VALUES (?, ?)', [`r${i}`, `body ${i % 3}`]);
      await tx.run('CREATE VIEW v AS SELECT 1 AS x');
    });
    // a hook's or a migration's SQL: the text names pragma_ and optimize apart
    const edit = store.write(async (tx) => {
      await tx.run('PRAGMA writable_schema = ON');
      const version = (await tx.get<{ schema_version: number }>('PRAGMA schema_version'))!.schema_version;
      await tx.run("UPDATE sqlite_master SET sql = 'CREATE VIEW v AS SELECT * FROM pragma_' || 'optimize(65538)' WHERE name = 'v'");
      await tx.run(`PRAGMA schema_version = ${version + 1}`);
      await tx.run('PRAGMA writable_schema = OFF');
    });
    await expect(edit).rejects.toThrow(/writable_schema/);
    await expect(store.all('SELECT * FROM pragma_writable_schema')).rejects.toThrow(/writable_schema/);
    expect(await store.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'v'")).toEqual({ sql: 'CREATE VIEW v AS SELECT 1 AS x' });
    expect(await store.all('SELECT * FROM v')).toEqual([{ x: 1 }]);
    expect(await store.all("SELECT name FROM sqlite_master WHERE name LIKE 'sqlite_stat%'")).toEqual([]);
  });
});
