// The PostgreSQL store (server/store-postgres/) against the real PostgreSQL 15 of the run: the Store
// contract core relies on, as the desktop engine keeps it (test/store/async-store.test.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { QueryBudget, QueryTimeoutError, READ_BYTE_WORK, READ_ROW_WORK, ReadTooLargeError } from '../../server/store/deadline.js';
import { POSTGRES_BACKSTOP_MS, POSTGRES_WRITE_STATEMENT_MS } from '../../server/store-postgres/budget.js';
import { openPostgresStore, PostgresStore } from '../../server/store-postgres/store.js';
import { DatabaseBusy } from '../../server/store-postgres/errors.js';
import { queryTooSlow, budgetError } from '../../server/core/query-budget.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

let db: FreshDatabase;
let store: PostgresStore;

describePostgres('the PostgreSQL store', () => {
  beforeAll(async () => {
    db = await freshDatabase('store');
    store = await openPostgresStore({ url: db.url, max: 6 });
    await store.write(async (tx) => {
      await tx.run('CREATE TABLE "t" ("id" text COLLATE "C" PRIMARY KEY, "n" double precision, "big" bigint, "b" boolean, "j" text, "at" timestamptz)');
    });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('creates the system tables at open, and opening again (another node) changes nothing', async () => {
    const tables = await store.all<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename COLLATE "C"`);
    expect(tables.map((r) => r.t)).toEqual(['_authOrigins', '_authTokens', '_bus_head', '_bus_outbox', '_collections', '_cronRuns', '_file_chunks', '_files', '_mailRequests', '_mails', '_mfas', '_migrations', '_otps', '_params', '_sessions', '_signInFailures', 't']);
    // two more nodes opening at once: the advisory lock makes them take turns, neither fails
    const [a, b] = await Promise.all([openPostgresStore({ url: db.url, max: 1 }), openPostgresStore({ url: db.url, max: 1 })]);
    await a.close();
    await b.close();
    // a collection's name is unique whatever the case of its ASCII letters, as COLLATE NOCASE on SQLite
    await store.write((tx) => tx.run(`INSERT INTO "_collections" ("id", "name", "data") VALUES ('c1', 'Posts', '{}')`));
    await expect(store.write((tx) => tx.run(`INSERT INTO "_collections" ("id", "name", "data") VALUES ('c2', 'posts', '{}')`))).rejects.toThrow(/UNIQUE constraint failed/);
    await store.write((tx) => tx.run(`DELETE FROM "_collections"`));
  });

  it('reads with ? placeholders, and rows look as on SQLite (numbers, 1/0, JSON and timestamps as text)', async () => {
    await store.write(async (tx) => {
      const r = await tx.run('INSERT INTO "t" VALUES (?, ?, ?, ?, ?, ?)', ['a', 1.5, 9007199254740991, 1, '{"b": 1, "a": [1,2]}', '2024-01-02 03:04:05.678Z']);
      expect(r.changes).toBe(1);
    });
    const row = await store.get('SELECT "n", "big", "b", "j", CAST("j" AS json) AS "asJson", "at", count(*) OVER () AS "count", 2.50::numeric AS "num", ("n" > ?) AS "cmp" FROM "t" WHERE "id" = ?', [1, 'a']);
    expect(row).toEqual({
      n: 1.5, big: 9007199254740991, b: 1, j: '{"b": 1, "a": [1,2]}', asJson: '{"b": 1, "a": [1,2]}',
      at: '2024-01-02 03:04:05.678+00', count: 1, num: 2.5, cmp: 1,
    });
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['missing'])).toBeUndefined();
    // a `?` inside a string literal is text, not a placeholder
    expect(await store.get(`SELECT '?' AS q, CAST(? AS text) AS p`, ['x'])).toEqual({ q: '?', p: 'x' });
  });

  it('rolls a write back when its function throws, and when a statement fails the rest of the function can go on', async () => {
    await expect(
      store.write(async (tx) => {
        await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['rolled']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['rolled'])).toBeUndefined();

    await store.write(async (tx) => {
      await expect(tx.run('INSERT INTO "t" ("id") VALUES (?)', ['a'])).rejects.toThrow('UNIQUE constraint failed: t.id');
      // as on SQLite, only the failed statement is undone
      await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['after-failure']);
    });
    expect(await store.get('SELECT "id" FROM "t" WHERE "id" = ?', ['after-failure'])).toEqual({ id: 'after-failure' });
  });

  it('runs statements a write starts together one after the other, none after its rollback', async () => {
    const failure = await store
      .write(async (tx) => {
        await Promise.all([
          tx.run('INSERT INTO "t" ("id") VALUES (?)', ['together-1']),
          tx.run('SELECT pg_sleep(0.05)'),
          tx.run('INSERT INTO "t" ("id") VALUES (?)', ['a']),
          tx.run('SELECT pg_sleep(0.05)'),
          tx.run('INSERT INTO "t" ("id") VALUES (?)', ['together-2']),
        ]);
      })
      .catch((err: unknown) => err);
    expect(String(failure)).toMatch(/UNIQUE constraint failed/);
    // the statements after the failed one ran inside the transaction, and were rolled back with it
    expect(await store.all('SELECT "id" FROM "t" WHERE "id" LIKE ?', ['together-%'])).toEqual([]);
    // and the connection went back to the pool clean: the next write commits as usual
    await store.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['together-3']));
    expect(await store.all('SELECT "id" FROM "t" WHERE "id" LIKE ?', ['together-%'])).toEqual([{ id: 'together-3' }]);
  });

  it('says which unique index or key refused a row (storeFailure), so core can say which fields clash', async () => {
    await store.write((tx) => tx.run('CREATE UNIQUE INDEX "idx_t_j" ON "t" ("j")'));
    await store.write((tx) => tx.run('INSERT INTO "t" ("id", "j") VALUES (?, ?)', ['u1', 'same']));
    const clash = store.write((tx) => tx.run('INSERT INTO "t" ("id", "j") VALUES (?, ?)', ['u2', 'same']));
    await expect(clash).rejects.toThrow("UNIQUE constraint failed: index 'idx_t_j'");
    await expect(clash).rejects.toMatchObject({ storeFailure: { kind: 'unique', index: 'idx_t_j' } });
    await expect(store.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['u1']))).rejects.toMatchObject({ storeFailure: { kind: 'unique', columns: ['id'] } });
    await store.write((tx) => tx.run('DROP INDEX "idx_t_j"'));
  });

  it('runs one write at a time within the node, in the order asked', async () => {
    const order: string[] = [];
    const slow = store.write(async (tx) => {
      order.push('first begins');
      await tx.run('SELECT pg_sleep(0.1)');
      await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['w1']);
      order.push('first ends');
    });
    const fast = store.write(async (tx) => {
      order.push('second begins');
      await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['w2']);
      order.push('second ends');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['first begins', 'first ends', 'second begins', 'second ends']);
  });

  it('shows readers committed rows only', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const didInsert = new Promise<void>((resolve) => (inserted = resolve));
    const writing = store.write(async (tx) => {
      await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['uncommitted']);
      inserted();
      await held;
    });
    await didInsert;
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['uncommitted'])).toBeUndefined();
    expect(await store.reader(new QueryBudget(1000)).get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['uncommitted'])).toBeUndefined();
    release();
    await writing;
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['uncommitted'])).toEqual({ x: 1 });
  });

  it('reads one committed state in a snapshot: a write committed between two of its reads is not seen, nor counted', async () => {
    const budget = new QueryBudget(5000);
    const seen = await store.snapshot(async (db) => {
      const before = await db.get<{ n: number }>('SELECT count(*) AS n FROM "t"');
      await store.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['between']));
      const after = await db.get<{ n: number }>('SELECT count(*) AS n FROM "t"');
      const row = await db.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['between']);
      return { before: before!.n, after: after!.n, row };
    }, budget);
    expect(seen.after).toBe(seen.before);
    expect(seen.row).toBeUndefined();
    expect(budget.spent).toBeGreaterThan(0);
    // outside the snapshot, the write is there
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['between'])).toEqual({ x: 1 });
    // a slow read inside a snapshot stops at its budget's backstop (here a budget's own, 300 ms)
    await expect(store.snapshot((db) => db.all('SELECT 1 AS x FROM pg_sleep(1)'), new QueryBudget(100, Infinity, 300))).rejects.toBeInstanceOf(QueryTimeoutError);
    await store.write((tx) => tx.run('DELETE FROM "t" WHERE "id" = ?', ['between']));
  });

  it('reads and writes with `SELECT *` after its table changed (the columns of a prepared statement changed), in a budgeted read, a snapshot and a write', async () => {
    // one connection: every statement below reuses what it prepared before the change
    const one = await openPostgresStore({ url: db.url, max: 1 });
    try {
      await one.write((tx) => tx.run('CREATE TABLE "s" ("id" text PRIMARY KEY)'));
      await one.write((tx) => tx.run(`INSERT INTO "s" VALUES ('a')`));
      const star = 'SELECT * FROM "s" WHERE "id" = ?';
      const everyWay = () => Promise.all([
        one.reader(new QueryBudget(5000)).get(star, ['a']),
        one.snapshot((r) => r.get(star, ['a']), new QueryBudget(5000)),
        one.write((tx) => tx.get(star, ['a'])),
      ]);
      expect(await everyWay()).toEqual([{ id: 'a' }, { id: 'a' }, { id: 'a' }]);
      // another node changes the table: PostgreSQL refuses the cached plans ("cached plan must not change result type")
      await db.sql.unsafe(`ALTER TABLE "s" ADD COLUMN "n" integer DEFAULT 7`);
      expect(await one.reader(new QueryBudget(5000)).get(star, ['a'])).toEqual({ id: 'a', n: 7 });
      await db.sql.unsafe(`ALTER TABLE "s" ADD COLUMN "m" integer DEFAULT 8`);
      expect(await one.snapshot((r) => r.get(star, ['a']), new QueryBudget(5000))).toEqual({ id: 'a', n: 7, m: 8 });
      await db.sql.unsafe(`ALTER TABLE "s" ADD COLUMN "k" integer DEFAULT 9`);
      // inside a write, the transaction goes on after the statement that met the change
      expect(await one.write(async (tx) => [await tx.get(star, ['a']), await tx.run(`UPDATE "s" SET "n" = 1`)])).toEqual([{ id: 'a', n: 7, m: 8, k: 9 }, { changes: 1 }]);
    } finally {
      await one.close();
    }
  });

  it('refuses a read or write through the store from inside a write, and a tx kept past its write', async () => {
    let kept!: Parameters<Parameters<PostgresStore['write']>[0]>[0];
    await store.write(async (tx) => {
      kept = tx;
      await expect(store.get('SELECT 1 AS x')).rejects.toThrow(/from inside a write\(\) transaction/);
      await expect(store.write(() => undefined)).rejects.toThrow(/inside another write/);
    });
    await expect(kept.run('INSERT INTO "t" ("id") VALUES (?)', ['late'])).rejects.toThrow(/transaction has ended/);
    // after the write, the same async context may read again
    expect(await store.get('SELECT 1 AS x')).toEqual({ x: 1 });
  });

  it('a snapshot, write or backup started from inside a snapshot\'s own function does not wait for it: readers hold no turn here; with every connection held by the caller, it is refused after the wait', async () => {
    const seen = await store.snapshot(async (db) => {
      const before = await db.all('SELECT "id" FROM "t" WHERE "id" = ?', ['nested']);
      // a write in a turn of its own, on a connection of its own: committed, not seen by the snapshot
      await store.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['nested']));
      const inner = await store.snapshot((own) => own.all('SELECT "id" FROM "t" WHERE "id" = ?', ['nested']));
      const after = await db.all('SELECT "id" FROM "t" WHERE "id" = ?', ['nested']);
      const backup = await store.backup().then(() => 'made', (err: unknown) => String(err));
      return { before, inner, after, backup };
    });
    expect(seen).toMatchObject({ before: [], inner: [{ id: 'nested' }], after: [] });
    expect(seen.backup).toMatch(/pg_dump/);
    await store.write((tx) => tx.run('DELETE FROM "t" WHERE "id" = ?', ['nested']));
    // one connection, held by the snapshot: what it starts waits for a connection, bounded (DatabaseBusy)
    const one = await openPostgresStore({ url: db.url, max: 1, connectWaitMs: 500 });
    try {
      const refused = await one.snapshot(async () => one.snapshot((own) => own.all('SELECT 1 AS x'))).then(() => null, (err: unknown) => err);
      expect(refused).toBeInstanceOf(DatabaseBusy);
      const write = await one.snapshot(async () => one.write((tx) => tx.run('INSERT INTO "t" ("id") VALUES (?)', ['never']))).then(() => null, (err: unknown) => err);
      expect(write).toBeInstanceOf(DatabaseBusy);
      expect(await one.get('SELECT count(*) AS n FROM "t" WHERE "id" = ?', ['never'])).toEqual({ n: 0 });
    } finally {
      await one.close();
    }
  });

  it('stops a slow read at the far backstop (POSTGRES_BACKSTOP_MS, statement_timeout) with the 400 core gives', async () => {
    const budget = new QueryBudget(150);
    const started = performance.now();
    const failure = await store.reader(budget).get('SELECT pg_sleep(5) AS s').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(QueryTimeoutError);
    const took = performance.now() - started;
    // stopped by PostgreSQL at the backstop, on its clock: not before it, long before the 5 s sleep ends
    expect(took).toBeGreaterThanOrEqual(POSTGRES_BACKSTOP_MS - 50);
    expect(took).toBeLessThan(4500);
    expect(budget.clock).toBeGreaterThanOrEqual(POSTGRES_BACKSTOP_MS);
    expect(budgetError(failure, 150)).toEqual(queryTooSlow(150));
    // a spent budget refuses the next call at once
    await expect(store.reader(budget).get('SELECT 1 AS x')).rejects.toBeInstanceOf(QueryTimeoutError);
    // the pool is not left with the timeout set
    expect(await store.get('SELECT 1 AS ok FROM pg_sleep(0.3)')).toEqual({ ok: 1 });
  });

  it('charges a budget the statements\' work, not the round trips: 1,000 quick statements fit a 150 ms budget their trips alone pass', async () => {
    const budget = new QueryBudget(150);
    const start = performance.now();
    await store.write(async (tx) => {
      for (let i = 0; i < 1000; i++) await tx.get('SELECT 1 AS x');
    }, budget);
    const wall = performance.now() - start;
    expect(budget.spent).toBeLessThan(150);
    // the backstop's clock counts each statement's own time, not the trips
    expect(budget.clock).toBeLessThan(wall / 2);
    // reads too
    const read = new QueryBudget(150);
    const db = store.reader(read);
    for (let i = 0; i < 300; i++) await db.get('SELECT 1 AS x');
    expect(read.spent).toBeLessThan(150);
    // one statement's own time is still stopped at what is left of the backstop (a budget's own, 300 ms here)
    await expect(store.write((tx) => tx.run('SELECT pg_sleep(1)'), new QueryBudget(100, Infinity, 300))).rejects.toBeInstanceOf(QueryTimeoutError);
  });

  it('charges reads their rows (work, as the desktop), not time: a slow statement is charged what a quick one is, rows past the budget stop the read', async () => {
    const sql = (sleep: number) => `SELECT g AS n, 'abc' AS s FROM generate_series(1, 1000) AS g, pg_sleep(${sleep})`;
    const quick = new QueryBudget(150);
    expect(await store.reader(quick).all(sql(0))).toHaveLength(1000);
    // 700 ms of the server's time, and the node's event loop held 300 ms while the rows come in: the same charge
    const slow = new QueryBudget(150);
    const reading = store.reader(slow).all(sql(0.7));
    await new Promise((resolve) => setTimeout(resolve, 600));
    const busyUntil = performance.now() + 300;
    while (performance.now() < busyUntil) { /* the node's event loop busy, as under load */ }
    expect(await reading).toHaveLength(1000);
    expect(slow.work).toBe(quick.work);
    expect(slow.spent).toBe(quick.spent);
    expect(slow.clock).toBeGreaterThan(quick.clock);
    expect(quick.spent).toBeGreaterThan(0);
    // the work: READ_ROW_WORK a row plus READ_BYTE_WORK a byte of its values (8 for the number, 3 + 2 for the text)
    expect(quick.work).toBe(1000 * (READ_ROW_WORK + 13 * READ_BYTE_WORK));
    // 200,000 rows are past 150 ms of work: stopped by the count, long before the backstop
    const many = new QueryBudget(150);
    await expect(store.reader(many).all('SELECT g AS n FROM generate_series(1, 200000) AS g')).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(many.spent).toBeGreaterThan(150);
    // stopped by the count as the rows came in, not at the end (nor by the clock: no bound on it here,
    // a loaded machine may take the backstop's time to stream them)
    expect(many.work).toBeLessThan(200_000 * (READ_ROW_WORK + 8 * READ_BYTE_WORK));
    // the connection is given back clean: the next read answers
    expect(await store.reader(new QueryBudget(150)).get('SELECT 1 AS x')).toEqual({ x: 1 });
  });

  it('does not charge a budget for the wait for a pooled connection', async () => {
    // every connection of the pool (6) held for 300 ms by other requests' budgeted reads (a transaction each)
    const busy = Array.from({ length: 6 }, () => store.reader(new QueryBudget(5000)).all('SELECT 1 AS x FROM pg_sleep(0.3)'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const budget = new QueryBudget(100);
    const started = performance.now();
    expect(await store.reader(budget).get('SELECT 1 AS x')).toEqual({ x: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(budget.clock).toBeLessThan(100);
    await Promise.all(busy);
  });

  it('bounds each statement of a write closer than the backstop (the write turn is held): POSTGRES_WRITE_STATEMENT_MS', async () => {
    const started = performance.now();
    await expect(store.write((tx) => tx.run('SELECT pg_sleep(1.5)'), new QueryBudget(150))).rejects.toBeInstanceOf(QueryTimeoutError);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(POSTGRES_WRITE_STATEMENT_MS - 50);
    expect(took).toBeLessThan(1_400);
    // a read is bounded by the backstop alone
    expect(await store.reader(new QueryBudget(150)).get('SELECT 1 AS x FROM pg_sleep(0.7)')).toEqual({ x: 1 });
  });

  it('stops a slow write at its backstop and rolls it back', async () => {
    const budget = new QueryBudget(150, Infinity, 500);
    const failure = await store
      .write(async (tx) => {
        await tx.run('INSERT INTO "t" ("id") VALUES (?)', ['slow-write']);
        await tx.run('SELECT pg_sleep(5)');
      }, budget)
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(QueryTimeoutError);
    expect(await store.get('SELECT 1 AS x FROM "t" WHERE "id" = ?', ['slow-write'])).toBeUndefined();
  });

  it('stops reading past the budget\'s read limit', async () => {
    await store.write(async (tx) => {
      await tx.run(`INSERT INTO "t" ("id", "j") SELECT 'big' || g, repeat('x', 1000) FROM generate_series(1, 500) AS g`);
    });
    const budget = new QueryBudget(5000, 50_000);
    await expect(store.reader(budget).all(`SELECT "j" FROM "t" WHERE "id" LIKE 'big%'`)).rejects.toBeInstanceOf(ReadTooLargeError);
    // it stopped near the limit instead of reading all 500 rows' 500 kB
    expect(budget.read).toBeLessThan(60_000);
    const roomy = new QueryBudget(5000, 10_000_000);
    expect(await store.reader(roomy).all(`SELECT "j" FROM "t" WHERE "id" LIKE 'big%'`)).toHaveLength(500);
  });

  it('refuses what it cannot do, naming what to use instead', async () => {
    await expect(store.backup()).rejects.toThrow(/pg_dump/);
    await expect(store.replaceFromDisk(async () => undefined)).rejects.toThrow(/pg_restore/);
    await expect(store.inspect(Buffer.from('SQLite format 3\0'))).rejects.toThrow(/pg_restore/);
    // the deadline guards need no function (the PostgreSQL dialect calls none); any other is refused
    expect(() => store.defineFunction('deskbase_guard', () => null)).not.toThrow();
    expect(() => store.defineFunction('my_function', () => null)).toThrow(/my_function/);
    expect(store.stats().entries).toBe(0);
    await store.checkpoint();
    expect(store.dialect).toBe('postgres');
  });
});
