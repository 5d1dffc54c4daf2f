// The logs' store and logger on both engines (vitest.config.ts ON_BOTH_ENGINES): retention by
// settings.logs.maxDays and minLevel on a moved clock (a few thousand rows per transaction), the
// output the hooks runtime writes (writeLog, writeConsole), and data cut to PocketBase's 16 KiB.
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../server/model/types.js';
import type { Store } from '../../server/store/db.js';
import { hookLogger, openLogs, writeConsole, writeLog, type Logs } from '../../server/logs/index.js';
import type { LogsSettings } from '../../server/core/settings.js';
import { openTestStore } from '../support/test-store.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-03-10T12:00:00.000Z');
const request: RequestInfo = { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {} };

let store: Store | null = null;
let logs: Logs | null = null;
afterEach(async () => {
  await logs?.close();
  await store?.close();
  logs = null;
  store = null;
});

async function open(settings: Partial<LogsSettings> = {}, clock = { now: T0 }) {
  store = await openTestStore('logs');
  const stored: LogsSettings = { maxDays: 5, minLevel: 0, logIP: true, logAuthId: false, ...settings };
  logs = await openLogs({ store, dir: null, settings: async () => stored, report: (e) => { throw e; }, now: () => clock.now });
  return { logs, clock };
}

const messages = async (l: Logs, query: Record<string, string> = {}) => (await l.list({ perPage: '1000', sort: '@rowid', ...query }, request)).items.map((i) => i.message);

describe('retention', () => {
  it('deletes what is older than maxDays, keeps the rest', async () => {
    const { logs: l, clock } = await open();
    clock.now = T0 - 10 * DAY;
    writeLog(l, 'info', 'ten days ago');
    clock.now = T0 - 6 * DAY;
    writeLog(l, 'error', 'six days ago');
    clock.now = T0 - 4 * DAY;
    writeLog(l, 'info', 'four days ago');
    clock.now = T0;
    writeLog(l, 'info', 'now');
    await l.logger.flush();
    expect(await messages(l)).toEqual(['ten days ago', 'six days ago', 'four days ago', 'now']);
    expect(await l.retain()).toBe(2);
    expect(await messages(l)).toEqual(['four days ago', 'now']);
    // fewer days kept from now on: the settings' change deletes at once
    l.apply({ maxDays: 1, minLevel: 0, logIP: true, logAuthId: false });
    await l.retain();
    expect(await messages(l)).toEqual(['now']);
  });

  it('deletes a large backlog a few thousand rows per transaction', async () => {
    const { logs: l, clock } = await open({}, { now: T0 - 30 * DAY });
    for (let i = 0; i < 4_500; i++) writeLog(l, 'info', `old ${i}`);
    await l.logger.flush();
    clock.now = T0;
    writeLog(l, 'info', 'recent');
    await l.logger.flush();
    expect(l.logger.written).toBe(4_501);
    expect(await l.retain()).toBe(4_500);
    expect(await messages(l)).toEqual(['recent']);
  });

  it('minLevel: nothing below it is kept, and raising it deletes what is below', async () => {
    const { logs: l } = await open();
    writeLog(l, 'debug', 'debug'); // below the default minLevel 0
    writeLog(l, 'info', 'info');
    writeLog(l, 'warn', 'warn');
    writeLog(l, 'error', 'error');
    await l.logger.flush();
    expect(await messages(l)).toEqual(['info', 'warn', 'error']);
    l.apply({ maxDays: 5, minLevel: 4, logIP: true, logAuthId: false });
    await l.retain();
    writeLog(l, 'info', 'info after');
    await l.logger.flush();
    expect(await messages(l)).toEqual(['warn', 'error']);
  });

  it('maxDays 0: nothing is kept, everything kept before is deleted', async () => {
    const { logs: l } = await open();
    writeLog(l, 'info', 'before');
    await l.logger.flush();
    l.apply({ maxDays: 0, minLevel: 0, logIP: true, logAuthId: false });
    await l.retain();
    writeLog(l, 'error', 'while off');
    expect(l.logger.log('error', 'while off')).toBe(false);
    await l.logger.flush();
    expect(await messages(l)).toEqual([]);
    expect(l.logger.pending()).toBe(0);
  });
});

describe('what server-side code writes', () => {
  it("writeLog: a level, a message and attributes; writeConsole: console's formatting and the caller's place", async () => {
    const { logs: l } = await open({ minLevel: -4 });
    writeLog(l, 'debug', 'cron ran', { type: 'cron', id: 'nightly', took: 12 });
    writeConsole(l, 'warn', ['%s has %d items', 'cart', 3, { a: 1 }], { file: 'pb_hooks/main.pb.js', line: 7 });
    writeConsole(l, 'log', ['plain']);
    // the hooks runtime's logger option (its entries name levels in capitals)
    hookLogger(l)({ level: 'ERROR', message: 'hook failed', data: { event: 'onRecordCreate', file: 'main.pb.js', line: 3 } });
    hookLogger(l)({ level: 'WARN', message: 'careful' });
    await l.logger.flush();
    const items = (await l.list({ sort: '@rowid' }, request)).items;
    expect(items.map((i) => [i.level, i.message, i.data])).toEqual([
      [-4, 'cron ran', { type: 'cron', id: 'nightly', took: 12 }],
      [4, 'cart has 3 items { a: 1 }', { type: 'console', file: 'pb_hooks/main.pb.js', line: 7 }],
      [0, 'plain', { type: 'console' }],
      [8, 'hook failed', { event: 'onRecordCreate', file: 'main.pb.js', line: 3 }],
      [4, 'careful', {}],
    ]);
    // filterable by their data, as any log
    expect(await messages(l, { filter: "data.type = 'console' && data.line = 7" })).toEqual(['cart has 3 items { a: 1 }']);
  });

  it('cuts data past 16 KiB (whole keys kept, __pb_truncated__ set) and messages to 16 KiB', async () => {
    const { logs: l } = await open();
    writeLog(l, 'info', 'm'.repeat(20_000), { small: 1, big: 'x'.repeat(20_000), after: 'kept' });
    await l.logger.flush();
    const [item] = (await l.list({}, request)).items;
    expect(item.message).toHaveLength(16 * 1024);
    expect(item.data).toEqual({ small: 1, after: 'kept', __pb_truncated__: true });
  });
});
