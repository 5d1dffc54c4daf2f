// How the desktop's log database is written, on a real sql.js store: logs made one after another get
// ids in the order they were made (the `_logs` primary key then grows at its end: a random id touched
// one page of that index per log, and a batch's commit rewrote them all, a cost that grew with the log
// database), still of the shape every id has; a batch is a thousand logs, one transaction (one commit,
// one synced journal write), made and inserted a slice at a time with turns of the loop between.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../server/store/db.js';
import { openLogs, type Logs } from '../../server/logs/index.js';
import { ID_PATTERN, timeOrderedId } from '../../server/core/ids.js';

let open: { logs: Logs; store: Store } | null = null;
afterEach(async () => {
  await open?.logs.close();
  await open?.store.close();
  open = null;
});

async function logsInMemory(): Promise<Logs> {
  const store = await openStore({ dir: null });
  const logs = await openLogs({ store, dir: null, settings: async () => ({ maxDays: 5, minLevel: 0, logIP: true, logAuthId: false }), report: (e) => { throw e; } });
  open = { logs, store };
  return logs;
}

describe('log ids', () => {
  it('sort in the order the logs were made, across batches, with the shape of every id', async () => {
    const logs = await logsInMemory();
    for (let i = 0; i < 1_000; i++) {
      logs.request({ method: 'GET', url: `/api/collections/posts/records?page=${i}`, status: 200, execTime: 0.1, userAgent: 'test', referer: '', auth: '', authId: '', ip: '127.0.0.1', remoteIp: '127.0.0.1' });
      if (i % 97 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await logs.logger.flush();
    // the logs API's default order: as written
    const request = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };
    const rows = (await logs.list({ perPage: '1000' }, request)).items;
    expect(rows).toHaveLength(1_000);
    // written in the order made, ids ascending with them
    expect(rows.map((r) => r.message)).toEqual(Array.from({ length: 1_000 }, (_, i) => `GET /api/collections/posts/records?page=${i}`));
    const ids = rows.map((r) => r.id);
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stay strictly increasing when made faster than the clock moves', () => {
    const ids = Array.from({ length: 50_000 }, () => timeOrderedId());
    for (let i = 1; i < ids.length; i++) if (!(ids[i - 1] < ids[i])) throw new Error(`${ids[i - 1]} then ${ids[i]}`);
    expect(ids.every((id) => ID_PATTERN.test(id))).toBe(true);
  });
});

describe('batches on a log store of their own', () => {
  it('a thousand queued logs are one batch, written across turns of the loop', async () => {
    const logs = await logsInMemory();
    for (let i = 0; i < 1_000; i++) {
      logs.request({ method: 'GET', url: `/api/health?n=${i}`, status: 200, execTime: 0.1, userAgent: 'test', referer: '', auth: '', authId: '', ip: '127.0.0.1', remoteIp: '127.0.0.1' });
    }
    const before = logs.logger.batches;
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await logs.logger.flush();
    done = true;
    expect(logs.logger.written).toBe(1_000);
    expect(logs.logger.batches - before).toBe(1);
    // five slices made and ten INSERTs, each in a turn of its own
    expect(turns).toBeGreaterThanOrEqual(10);
    const request = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };
    expect((await logs.list({ perPage: '1' }, request)).totalItems).toBe(1_000);
  });
});
