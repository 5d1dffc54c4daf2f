// The store's side of the query budget: a guard function called from inside a statement charges work
// and stops it once its budget is spent, the failure is a QueryTimeoutError (and only then), a budget
// counts the work charged for its operation and not the time it takes (descheduled, waiting for a write
// transaction, or between awaits) until the far wall-clock backstop, writes stopped this way leave
// nothing behind, and SQL functions survive a reload from disk.
import { describe, expect, it } from 'vitest';
import { QueryBudget, QueryTimeoutError, READ_BYTE_WORK, READ_ROW_WORK, ReadTooLargeError, WORK_PER_MS } from '../../server/store/deadline.js';
import type { Store } from '../../server/store/db.js';
import { useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

/** A statement that runs until stopped: a recursive CTE calling the guard on every row. */
const ENDLESS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard()) SELECT count(*) AS c FROM n';
/** A statement that calls the guard `n` times. */
const counting = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard() AND i < ${n}) SELECT count(*) AS c FROM n`;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** What the test guard charges per call: a 50 ms budget holds 50,000 calls. */
const PER_CALL = 1_000;

/** Holds the event loop `ms`, as a descheduled or slow machine would, without charging anything. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function storeWithGuard(dir: string | null = null): Promise<Store> {
  const store = await openAt(dir);
  store.defineFunction('guard', () => {
    store.checkDeadline(PER_CALL);
    return 1;
  });
  // work that takes time but charges little: 1 ms of wall clock per call
  store.defineFunction('slow', () => {
    busy(1);
    store.checkDeadline(1);
    return 1;
  });
  return store;
}

describe('query budget (store)', () => {
  it('stops a statement that calls the guard once its budget of work is spent, at the same call every time', async () => {
    const store = await storeWithGuard();
    const calls = (50 * WORK_PER_MS) / PER_CALL;
    // counting(n) calls the guard n times; reading its one row out is charged too
    expect((await store.reader(new QueryBudget(50)).get<{ c: number }>(counting(calls - 2)))?.c).toBe(calls - 2);
    for (let i = 0; i < 3; i++) {
      const budget = new QueryBudget(50);
      await expect(store.reader(budget).get(counting(calls + 1))).rejects.toBeInstanceOf(QueryTimeoutError);
      expect(budget.work).toBe((calls + 1) * PER_CALL);
    }
    await expect(store.reader(new QueryBudget(50)).get(ENDLESS)).rejects.toBeInstanceOf(QueryTimeoutError);
    // a new budget starts afresh, and without one the guard never throws
    expect((await store.reader(new QueryBudget(50)).get<{ c: number }>(counting(1)))?.c).toBe(1);
    expect((await store.get<{ c: number }>(counting(100_000)))?.c).toBe(100_000);
  });

  it('does not count time: a statement that takes far longer than its budget but charges little is served', async () => {
    const store = await storeWithGuard();
    const budget = new QueryBudget(20);
    const start = performance.now();
    const row = await store.reader(budget).get<{ c: number }>('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE slow() AND i < 100) SELECT count(*) AS c FROM n');
    expect(row?.c).toBe(100);
    expect(performance.now() - start).toBeGreaterThanOrEqual(99); // five times its budget, in wall clock
    expect(budget.spent).toBeLessThan(1);
  });

  it('stops at the wall-clock backstop what no charge counts', async () => {
    const store = await storeWithGuard();
    const budget = new QueryBudget(20, Infinity, 60);
    const start = performance.now();
    await expect(store.reader(budget).get('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE slow()) SELECT count(*) AS c FROM n'))
      .rejects.toBeInstanceOf(QueryTimeoutError);
    const took = performance.now() - start;
    expect(took).toBeGreaterThanOrEqual(59);
    expect(took).toBeLessThan(2_000);
    expect(budget.spent).toBeLessThan(1);
    // the backstop is spent for the whole operation: its next call is refused at once
    await expect(store.reader(budget).get(counting(1))).rejects.toBeInstanceOf(QueryTimeoutError);
  });

  it('other failures stay what they are, under a budget too', async () => {
    const store = await storeWithGuard();
    const thrown = await store.reader(new QueryBudget(50)).get('SELECT * FROM missing_table').catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/no such table/);
    expect(thrown).not.toBeInstanceOf(QueryTimeoutError);
  });

  it('counts the work of every call made with it, not the time between them', async () => {
    const store = await storeWithGuard();
    const budget = new QueryBudget(40);
    const db = store.reader(budget);
    // waiting between calls costs nothing: 100 ms of sleep, a 40 ms budget, every call served
    for (let i = 0; i < 5; i++) {
      expect((await db.get<{ c: number }>(counting(10)))?.c).toBe(10);
      await sleep(20);
    }
    const each = 10 * PER_CALL + READ_ROW_WORK + 8 * READ_BYTE_WORK; // ten guard calls and one row of one number
    expect(budget.work).toBe(5 * each);
    expect(budget.spent).toBeCloseTo((5 * each) / WORK_PER_MS);
    // the calls' work adds up: a statement running past what is left stops there, and once the budget
    // is spent even a short guarded statement is refused (a fresh budget runs it)
    await expect(db.get(ENDLESS)).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(budget.spent).toBeGreaterThan(40);
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
