// The store's side of the query deadline: a guard function called from inside a statement stops it
// once the stretch's deadline has passed, the failure is a QueryTimeoutError (and only then), writes
// stopped this way leave nothing behind, and SQL functions survive a reload from disk.
import { describe, expect, it } from 'vitest';
import { QueryTimeoutError } from '../../server/store/deadline.js';
import type { Store } from '../../server/store/db.js';
import { useStores } from '../fixtures/store-helpers.js';

const { dirs, openAt } = useStores();

/** A statement that runs until stopped: a recursive CTE calling the guard on every row. */
const ENDLESS = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard()) SELECT count(*) AS c FROM n';

async function storeWithGuard(dir: string | null = null): Promise<Store> {
  const store = await openAt(dir);
  store.defineFunction('guard', () => {
    store.checkDeadline();
    return 1;
  });
  return store;
}

describe('query deadline (store)', () => {
  it('stops a statement that calls the guard once the deadline has passed', async () => {
    const store = await storeWithGuard();
    const start = performance.now();
    expect(() => store.withDeadline(50, () => store.get(ENDLESS))).toThrow(QueryTimeoutError);
    const took = performance.now() - start;
    expect(took).toBeGreaterThanOrEqual(49);
    expect(took).toBeLessThan(1000);
    // the next stretch starts afresh, and without a deadline the guard never throws
    expect(store.withDeadline(50, () => store.get<{ c: number }>('SELECT count(*) AS c FROM (SELECT 1) WHERE guard()'))?.c).toBe(1);
    expect(store.get<{ c: number }>("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE guard() AND i < 100000) SELECT count(*) AS c FROM n")?.c).toBe(100000);
  });

  it('other failures stay what they are, inside a deadline too', async () => {
    const store = await storeWithGuard();
    expect(() => store.withDeadline(50, () => store.get('SELECT * FROM missing_table'))).toThrow(/no such table/);
    let thrown: unknown;
    try {
      store.withDeadline(50, () => store.get('SELECT * FROM missing_table'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).not.toBeInstanceOf(QueryTimeoutError);
  });

  it('a nested stretch keeps the outer deadline; the deadline ends with the stretch', async () => {
    const store = await storeWithGuard();
    expect(() => store.withDeadline(30, () => store.withDeadline(60_000, () => store.get(ENDLESS)))).toThrow(QueryTimeoutError);
    // an async function: the deadline covers its synchronous part only
    const later = store.withDeadline(1, async () => {
      await new Promise((done) => setTimeout(done, 20));
      return store.get<{ c: number }>('SELECT count(*) AS c FROM (SELECT 1) WHERE guard()')?.c;
    });
    expect(await later).toBe(1);
  });

  it('a write stopped by the deadline is rolled back and journals nothing', async () => {
    const store = await storeWithGuard(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY)'));
    const entries = store.stats().entries;
    await expect(store.withDeadline(30, () => store.write((tx) => {
      tx.run("INSERT INTO t (id) VALUES ('a')");
      tx.get(ENDLESS);
    }))).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(store.all('SELECT id FROM t')).toEqual([]);
    expect(store.stats().entries).toBe(entries);
  });

  it('SQL functions survive a reload from disk', async () => {
    const store = await storeWithGuard(dirs.make());
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY)'));
    const reloaded = new Promise<void>((done) => store.onReload(done));
    // what a failed journal write does: memory is reloaded from what the disk holds
    (store as unknown as { onJournalFailure(error: Error): void }).onJournalFailure(new Error('simulated EIO'));
    await reloaded;
    expect(store.get<{ v: number }>('SELECT guard() AS v')?.v).toBe(1);
  });
});
