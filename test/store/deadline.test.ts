// The store's side of the query deadline: a guard function called from inside a statement stops it
// once its budget is spent, the failure is a QueryTimeoutError (and only then), a budget counts the
// engine's work for its operation and not the time spent waiting (for a write transaction, or between
// awaits), writes stopped this way leave nothing behind, and SQL functions survive a reload from disk.
import { describe, expect, it } from 'vitest';
import { QueryBudget, QueryTimeoutError, ReadTooLargeError } from '../../server/store/deadline.js';
import type { Store } from '../../server/store/db.js';
import { useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

/** A statement that runs until stopped: a recursive CTE calling the guard on every row. */
const ENDLESS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard()) SELECT count(*) AS c FROM n';
/** A statement that calls the guard `n` times. */
const counting = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard() AND i < ${n}) SELECT count(*) AS c FROM n`;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function storeWithGuard(dir: string | null = null): Promise<Store> {
  const store = await openAt(dir);
  store.defineFunction('guard', () => {
    store.checkDeadline();
    return 1;
  });
  return store;
}

describe('query deadline (store)', () => {
  it('stops a statement that calls the guard once its budget is spent', async () => {
    const store = await storeWithGuard();
    const start = performance.now();
    await expect(store.reader(new QueryBudget(50)).get(ENDLESS)).rejects.toBeInstanceOf(QueryTimeoutError);
    const took = performance.now() - start;
    expect(took).toBeGreaterThanOrEqual(49);
    expect(took).toBeLessThan(1000);
    // a new budget starts afresh, and without one the guard never throws
    expect((await store.reader(new QueryBudget(50)).get<{ c: number }>(counting(1)))?.c).toBe(1);
    expect((await store.get<{ c: number }>(counting(100_000)))?.c).toBe(100_000);
  });

  it('other failures stay what they are, under a budget too', async () => {
    const store = await storeWithGuard();
    const thrown = await store.reader(new QueryBudget(50)).get('SELECT * FROM missing_table').catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/no such table/);
    expect(thrown).not.toBeInstanceOf(QueryTimeoutError);
  });

  it('counts the engine work of every call made with it, not the time between them', async () => {
    const store = await storeWithGuard();
    const budget = new QueryBudget(40);
    const db = store.reader(budget);
    // waiting between calls costs nothing: 100 ms of sleep, a 40 ms budget, every call served
    for (let i = 0; i < 5; i++) {
      expect((await db.get<{ c: number }>(counting(10)))?.c).toBe(10);
      await sleep(20);
    }
    expect(budget.spent).toBeLessThan(40);
    // the calls' work adds up: a statement running past what is left stops there, and once the budget
    // is spent even a short guarded statement is refused (a fresh budget runs it)
    await expect(db.get(ENDLESS)).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(budget.spent).toBeGreaterThanOrEqual(39);
    await expect(db.get(counting(10))).rejects.toBeInstanceOf(QueryTimeoutError);
    expect((await store.reader(new QueryBudget(40)).get<{ c: number }>(counting(10)))?.c).toBe(10);
  });

  it('a read that waited behind a long write transaction still has its whole budget', async () => {
    const store = await storeWithGuard();
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY)'));
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const writing = store.write(async (tx) => {
      await tx.run("INSERT INTO t (id) VALUES ('a')");
      opened();
      await sleep(150); // the transaction stays open three times the reader's budget
    });
    await open;
    const budget = new QueryBudget(50);
    const start = performance.now();
    const row = await store.reader(budget).get<{ c: number }>(`SELECT count(*) AS c FROM t WHERE guard()`);
    expect(performance.now() - start).toBeGreaterThanOrEqual(100); // it waited for the commit...
    expect(row?.c).toBe(1); // ...saw it, and was not stopped
    expect(budget.spent).toBeLessThan(50);
    await writing;
  });

  it('keeps the read limit across the calls of one budget', async () => {
    const store = await storeWithGuard();
    const db = store.reader(new QueryBudget(10_000, 100));
    expect(await db.all("SELECT 'x' AS v")).toHaveLength(1); // 3 bytes
    await expect(db.all(`SELECT printf('%.200c', 'y') AS v`)).rejects.toBeInstanceOf(ReadTooLargeError);
  });

  it('a write stopped by its budget is rolled back and journals nothing', async () => {
    const store = await storeWithGuard(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY)'));
    const entries = store.stats().entries;
    await expect(store.write(async (tx) => {
      await tx.run("INSERT INTO t (id) VALUES ('a')");
      await tx.get(ENDLESS);
    }, new QueryBudget(30))).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(await store.all('SELECT id FROM t')).toEqual([]);
    expect(store.stats().entries).toBe(entries);
  });

  it('SQL functions survive a reload from disk', async () => {
    const store = await storeWithGuard(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY)'));
    const reloaded = new Promise<void>((done) => store.onReload(done));
    // what a failed journal write does: memory is reloaded from what the disk holds
    (store as unknown as { onJournalFailure(error: Error): void }).onJournalFailure(new Error('simulated EIO'));
    await reloaded;
    expect((await store.get<{ v: number }>('SELECT guard() AS v'))?.v).toBe(1);
  });
});
