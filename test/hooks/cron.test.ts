// The scheduler (server/hooks/cron.ts) over the claims (server/hooks/cron-claims.ts) on the suite's
// engine: due jobs run at a tick and others don't, a run still going makes the next tick skip (logged),
// two schedulers on one database run a tick once, a failing job is logged and the next tick runs. The
// clock is moved by hand except in one test, which waits for real ticks of a one-second interval.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cron, type CronLog } from '../../server/hooks/cron.js';
import { storeClaims } from '../../server/hooks/cron-claims.js';
import { ensureSystemSchema } from '../../server/store/schema.js';
import type { Store } from '../../server/store/db.js';
import { openTestStore } from '../support/test-store.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 5, 10, 0); // a Monday, 10:00 UTC

let store: Store;
let logged: Parameters<CronLog>[0][];
const log: CronLog = (entry) => logged.push(entry);

beforeEach(async () => {
  store = await openTestStore('cron');
  if (store.dialect !== 'postgres') await store.write((tx) => ensureSystemSchema(tx));
  logged = [];
});
afterEach(async () => {
  await store.close();
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('cron scheduler', () => {
  it('runs at a tick only the jobs due then, each replaced by a later add of its id', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), log });
    const ran: string[] = [];
    cron.add('every', '* * * * *', async () => void ran.push('every'));
    cron.add('hourly', '@hourly', async () => void ran.push('hourly'));
    cron.add('at5', '5 * * * *', async () => void ran.push('at5-old'));
    cron.add('at5', '5 * * * *', async () => void ran.push('at5'));
    await cron.tick(T0);
    expect(ran.sort()).toEqual(['every', 'hourly']);
    ran.length = 0;
    await cron.tick(T0 + 5 * MINUTE);
    expect(ran.sort()).toEqual(['at5', 'every']);
    cron.remove('every');
    ran.length = 0;
    await cron.tick(T0 + 6 * MINUTE);
    expect(ran).toEqual([]);
    expect(cron.jobs()).toEqual([{ id: 'at5', expression: '5 * * * *' }, { id: 'hourly', expression: '0 * * * *' }]);
  });

  it('lists jobs by id with PocketBase\'s __pb jobs last', () => {
    const cron = new Cron();
    for (const id of ['b', '__pbLogsCleanup__', 'a', 'C']) cron.add(id, '@daily', async () => {});
    expect(cron.jobs().map((j) => j.id)).toEqual(['C', 'a', 'b', '__pbLogsCleanup__']);
  });

  it('refuses a bad expression with PocketBase\'s message, keeping the job it had', async () => {
    const cron = new Cron();
    cron.add('x', '@hourly', async () => {});
    expect(() => cron.add('x', '61 * * * *', async () => {})).toThrow('failed to add new cron job: invalid segment value - must be between the min and max of the segment');
    expect(cron.jobs()).toEqual([{ id: 'x', expression: '0 * * * *' }]);
  });

  it('skips a tick while the previous run is still going, and logs it', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), log });
    const slow = deferred();
    let runs = 0;
    cron.add('slow', '* * * * *', async () => {
      runs++;
      await slow.promise;
    });
    const first = cron.tick(T0);
    // the run starts once its claim is written (a statement to PostgreSQL on that engine): waited for, not timed
    for (let i = 0; i < 2_000 && runs === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(runs).toBe(1);
    await cron.tick(T0 + MINUTE); // the first run is still going
    expect(runs).toBe(1);
    expect(logged.some((e) => e.level === 'warn' && e.jobId === 'slow' && /skipped/.test(e.message))).toBe(true);
    slow.resolve();
    await first;
    await cron.tick(T0 + 2 * MINUTE);
    expect(runs).toBe(2);
  });

  it('runs a tick once across two schedulers on one database, and skips while the other node still runs', async () => {
    const a = new Cron({ claims: storeClaims(store, 'node-a', { crossNode: true }), log });
    const b = new Cron({ claims: storeClaims(store, 'node-b', { crossNode: true }), log });
    const ran: string[] = [];
    const slow = deferred();
    a.add('job', '* * * * *', async () => void ran.push('a'));
    b.add('job', '* * * * *', async () => void ran.push('b'));
    await Promise.all([a.tick(T0), b.tick(T0 + 3)]);
    expect(ran).toHaveLength(1);
    const rows = await store.all<{ tick: number; node: string }>('SELECT "tick", "node" FROM "_cronRuns" WHERE "job" = ?', ['job']);
    expect(rows.map((r) => [Number(r.tick), r.node])).toEqual([[T0, ran[0] === 'a' ? 'node-a' : 'node-b']]);

    // a's run of the next tick is still going when b reaches the one after it: b skips it
    ran.length = 0;
    a.add('job', '* * * * *', async () => {
      ran.push('a');
      await slow.promise;
    });
    const aRun = a.tick(T0 + MINUTE);
    await new Promise((r) => setTimeout(r, 100));
    await b.tick(T0 + 2 * MINUTE);
    expect(ran).toEqual(['a']);
    expect(logged.some((e) => /still going on another node/.test(e.message))).toBe(true);
    slow.resolve();
    await aRun;
    await b.tick(T0 + 3 * MINUTE);
    expect(ran).toEqual(['a', 'b']);
  });

  it('lets a closing node\'s runs end with it, and on one node a previous process\'s claim holds nothing back', async () => {
    // a claim left unfinished by a node that is gone
    await store.write((tx) => tx.run('INSERT INTO "_cronRuns" ("job", "tick", "node", "started") VALUES (?, ?, ?, ?)', ['job', T0, 'gone', Date.now()]));
    let runs = 0;
    const desktop = new Cron({ claims: storeClaims(store, 'desktop', { crossNode: false }), log });
    desktop.add('job', '* * * * *', async () => void runs++);
    await desktop.tick(T0 + MINUTE);
    expect(runs).toBe(1);
    const team = new Cron({ claims: storeClaims(store, 'team', { crossNode: true }), log });
    team.add('job', '* * * * *', async () => void runs++);
    await team.tick(T0 + 2 * MINUTE);
    expect(runs).toBe(1); // held back by the unfinished claim of 'gone'
    // a node closing mid-run marks its claims finished, so the others go on at the next tick
    const slow = deferred();
    const closing = new Cron({ claims: storeClaims(store, 'gone', { crossNode: true }), log });
    closing.add('other', '* * * * *', async () => slow.promise);
    const run = closing.tick(T0 + 3 * MINUTE);
    await new Promise((r) => setTimeout(r, 100));
    await closing.close();
    expect(await store.all('SELECT 1 FROM "_cronRuns" WHERE "node" = ? AND "finished" IS NULL', ['gone'])).toHaveLength(0);
    await team.tick(T0 + 4 * MINUTE);
    expect(runs).toBe(2);
    slow.resolve();
    await run;
  });

  it('logs a failing job and runs it again at its next tick', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), log });
    let runs = 0;
    cron.add('fails', '* * * * *', async () => {
      runs++;
      throw new Error('boom');
    });
    await cron.tick(T0);
    await cron.tick(T0 + MINUTE);
    expect(runs).toBe(2);
    expect(logged.filter((e) => e.level === 'error' && e.jobId === 'fails' && e.error === 'boom')).toHaveLength(2);
  });

  it('runs a job now outside its schedule, null for an unknown id', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), log });
    let runs = 0;
    cron.add('yearly', '@yearly', async () => void runs++);
    expect(cron.runNow('nope')).toBeNull();
    expect(await cron.runNow('yearly')).toBe('ran');
    expect(runs).toBe(1);
  });

  it('runs a job asked by hand while its run is going once that run ends, asks made meanwhile sharing that run', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), log });
    const gates = [deferred(), deferred()];
    let runs = 0;
    cron.add('slow', '@yearly', async () => {
      await gates[runs++].promise;
    });
    const first = cron.runNow('slow')!;
    const second = cron.runNow('slow')!;
    const third = cron.runNow('slow')!;
    expect(third).toBe(second);
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(1); // the second waits for the first: never two runs of one job at once
    gates[0].resolve();
    expect(await first).toBe('ran');
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(2);
    gates[1].resolve();
    expect(await second).toBe('ran');
    expect(runs).toBe(2);
    expect(logged.some((e) => e.jobId === 'slow' && /skipped/.test(String(e.message)))).toBe(false);
  });

  it('ticks on its own at each interval boundary of a real clock', async () => {
    const cron = new Cron({ claims: storeClaims(store, 'a', { crossNode: true }), intervalMs: 1000, log });
    const at: number[] = [];
    cron.add('each', '* * * * *', async () => void at.push(Date.now()));
    cron.start();
    try {
      const t = Date.now();
      while (at.length < 2 && Date.now() - t < 5000) await new Promise((r) => setTimeout(r, 50));
    } finally {
      cron.stop();
    }
    expect(at.length).toBeGreaterThanOrEqual(2);
    // each run starts just after a whole second
    for (const ms of at) expect(ms % 1000).toBeLessThan(500);
    const claims = await store.all<{ tick: number }>('SELECT "tick" FROM "_cronRuns" WHERE "job" = ?', ['each']);
    expect(claims.length).toBeGreaterThanOrEqual(2);
    for (const c of claims) expect(Number(c.tick) % 1000).toBe(0);
  });
});
