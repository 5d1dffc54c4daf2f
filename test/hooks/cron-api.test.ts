// cronAdd / cronRemove from a real pb_hooks folder, GET /api/crons and POST /api/crons/{id} as PocketBase
// answers them, through the SDK and over HTTP: the jobs listed by id with macros expanded, superusers
// only, a job run now (204) writing a record through $app, 404 for an unknown id, a job's output and
// errors in the hooks' logger, a bad expression failing the load with PocketBase's message, a run still
// going at the next (real, one-second) tick skipped and logged, and the jobs and routes following a
// reload of the files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PocketBase from 'pocketbase';
import { startServer } from '../../server/index.js';
import type { HookLogEntry } from '../../server/hooks/index.js';
import { failure, startSdkServer, type SdkServer } from '../support/sdk-server.js';

const HOOKS = String.raw`
// on February 31st: never by the clock while the test runs, only when asked
cronAdd("hello", "*/5 0 31 2 *", () => {
  console.log("hello from cron")
  const c = $app.findCollectionByNameOrId("runs")
  const r = new Record(c)
  r.set("job", "hello")
  $app.save(r)
})
cronAdd("daily", "@daily", () => { throw new Error("the daily job failed") })
cronAdd("gone", "@hourly", () => {})
cronRemove("gone")
cronAdd("__pbInternal", "0 0 1 1 *", () => {})
cronAdd("a_first", "0 12 * * 1-5", () => {})
onBootstrap((e) => {
  e.next()
  const tag = "a variable around it"
  cronAdd("boot", "@hourly", () => { console.log("boot job ran, tag " + typeof tag) })
})
`;

let dir: string;
let sdk: SdkServer;
let user: PocketBase;
const logged: HookLogEntry[] = [];

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deskbase-cron-'));
  writeFileSync(join(dir, 'cron.pb.js'), HOOKS);
  sdk = await startSdkServer({ hooksDir: dir, hooksLogger: (e) => void logged.push(e) });
  await sdk.admin.collections.create({ name: 'runs', type: 'base', fields: [{ name: 'job', type: 'text' }] });
  await sdk.admin.collection('users').create({ email: 'u@example.com', password: 'user password 1', passwordConfirm: 'user password 1' });
  user = sdk.client();
  await user.collection('users').authWithPassword('u@example.com', 'user password 1');
});

afterAll(async () => {
  await sdk?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the crons API', () => {
  it('lists the jobs by id, PocketBase\'s __pb ones last, macros expanded, a removed one gone', async () => {
    expect(await sdk.admin.crons.getFullList()).toEqual([
      { id: 'a_first', expression: '0 12 * * 1-5' },
      { id: 'boot', expression: '0 * * * *' },
      { id: 'daily', expression: '0 0 * * *' },
      { id: 'hello', expression: '*/5 0 31 2 *' },
      { id: '__pbInternal', expression: '0 0 1 1 *' },
    ]);
  });

  it('is for superusers only', async () => {
    expect((await failure(sdk.client().crons.getFullList())).status).toBe(401);
    expect((await failure(user.crons.getFullList())).status).toBe(403);
    expect((await failure(user.crons.run('hello'))).status).toBe(403);
    expect(await sdk.admin.collection('runs').getFullList()).toHaveLength(0);
  });

  it('runs a job now with a 204, its output in the hooks\' logger', async () => {
    const res = await fetch(`${sdk.server.url}/api/crons/hello`, { method: 'POST', headers: { authorization: sdk.admin.authStore.token } });
    expect([res.status, await res.text()]).toEqual([204, '']);
    await until(async () => (await sdk.admin.collection('runs').getFullList()).length === 1);
    expect(logged.some((e) => e.message.includes('hello from cron'))).toBe(true);
    // asked again at once: the first run may still be finishing after its record is visible (a loaded
    // machine); the second starts when it ends, never dropped
    expect(await sdk.admin.crons.run('hello')).toBe(true);
    await until(async () => (await sdk.admin.collection('runs').getFullList()).length === 2);
  });

  it('runs a job cronAdd added from a running handler, from its source as PocketBase (no variables around it)', async () => {
    expect(await sdk.admin.crons.run('boot')).toBe(true);
    await until(() => logged.some((e) => e.message.includes('boot job ran, tag undefined')));
  });

  it('logs a failing job with its id and error', async () => {
    expect(await sdk.admin.crons.run('daily')).toBe(true);
    await until(() => logged.some((e) => e.level === 'ERROR' && e.message === '[cronAdd] failed to execute cron job' && e.data.jobId === 'daily'));
    expect(String(logged.find((e) => e.data.jobId === 'daily')!.data.error)).toMatch(/the daily job failed/);
  });

  it('answers 404 for an unknown id', async () => {
    const missing = await failure(sdk.admin.crons.run('nope'));
    expect([missing.status, missing.response]).toEqual([404, { status: 404, message: 'Missing or invalid cron job.', data: {} }]);
    expect((await failure(sdk.admin.crons.run('gone'))).status).toBe(404);
  });
});

describe('cron jobs from pb_hooks', () => {
  it('fail the load on a bad expression with PocketBase\'s message, naming the file', async () => {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-cron-bad-'));
    try {
      writeFileSync(join(d, 'bad.pb.js'), 'cronAdd("x", "61 * * * *", () => {})\n');
      const err = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: d, hooksLogger: () => undefined }).then(
        async (s) => { await s.close(); return null; },
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/\[cronAdd\] failed to register cron job x: failed to add new cron job: invalid segment value - must be between the min and max of the segment/);
      expect(err?.message).toMatch(/bad\.pb\.js:1/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('refuse cronAdd at run time through another file\'s function, naming the job', async () => {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-cron-indirect-'));
    try {
      writeFileSync(join(d, 'lib.js'), 'module.exports = () => cronAdd("indirect", "@daily", () => {})\n');
      writeFileSync(join(d, 'main.pb.js'), 'onBootstrap((e) => { e.next(); require(`${__hooks}/lib.js`)() })\n');
      const err = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: d, hooksLogger: () => undefined }).then(
        async (s) => { await s.close(); return null; },
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/\[cronAdd\] failed to register cron job indirect: at run time, Deskbase takes cronAdd from a handler whose own code calls it/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('skip a real tick while their previous run is still going, and log it', async () => {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-cron-slow-'));
    const log: HookLogEntry[] = [];
    writeFileSync(join(d, 'slow.pb.js'), 'cronAdd("slow", "* * * * *", () => { console.log("slow run"); const t = Date.now(); while (Date.now() - t < 1600) {} })\n');
    const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, hooksDir: d, hooksLogger: (e) => void log.push(e), cronIntervalMs: 1000 });
    try {
      await until(() => log.some((e) => e.level === 'WARN' && /job "slow" skipped: its previous run is still going/.test(e.message)), 6000);
      const runs = log.filter((e) => e.message.includes('slow run')).length;
      expect(runs).toBeGreaterThanOrEqual(1);
      // the job runs on a hook worker, not on the event loop (test/hooks/safety.test.ts times this)
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      await server.close();
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('follow a reload: new jobs and routes in, removed ones out', async () => {
    const d = mkdtempSync(join(tmpdir(), 'deskbase-cron-reload-'));
    writeFileSync(join(d, 'a.pb.js'), 'cronAdd("before", "@daily", () => {})\nrouterAdd("GET", "/api/before", (e) => e.string(200, "before"))\n');
    const s = await startSdkServer({ hooksDir: d, hooksLogger: () => undefined });
    try {
      expect((await s.admin.crons.getFullList()).map((j) => j.id)).toEqual(['before']);
      expect(await (await fetch(`${s.server.url}/api/before`)).text()).toBe('before');
      writeFileSync(join(d, 'a.pb.js'), 'cronAdd("after", "@hourly", () => {})\nrouterAdd("GET", "/api/after", (e) => e.string(200, "after"))\n');
      await s.server.hooks!.reload();
      expect(await s.admin.crons.getFullList()).toEqual([{ id: 'after', expression: '0 * * * *' }]);
      expect((await fetch(`${s.server.url}/api/before`)).status).toBe(404);
      expect(await (await fetch(`${s.server.url}/api/after`)).text()).toBe('after');
    } finally {
      await s.server.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
