// The logs over HTTP, on both engines (vitest.config.ts ON_BOTH_ENGINES): real requests to a real server
// are logged as PocketBase logs them, without their secrets; `GET /api/logs`, `/api/logs/stats` and
// `/api/logs/{id}` answer PocketBase's shapes through the official SDK, to superusers only; the `logs`
// settings decide what is kept.
import { describe, expect, it, beforeAll } from 'vitest';
import type PocketBase from 'pocketbase';
import { ADMIN, failure, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();

interface Log { id: string; created: string; level: number; message: string; data: Record<string, unknown> }

async function flushed(): Promise<void> {
  await sdk.server.logs.logger.flush();
}

/** Every log kept now, oldest first. */
async function allLogs(admin: PocketBase = sdk.admin): Promise<Log[]> {
  await flushed();
  return (await admin.logs.getList(1, 1000, { sort: '@rowid' })).items as unknown as Log[];
}

const USER = { email: 'user@example.com', password: 'user password 123' };
let user: PocketBase;

beforeAll(async () => {
  await sdk.admin.collections.create({ name: 'notes', type: 'base', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }] });
  await sdk.admin.collection('users').create({ ...USER, passwordConfirm: USER.password });
  user = sdk.client();
  await user.collection('users').authWithPassword(USER.email, USER.password);
});

describe('request logs', () => {
  it('logs each request with what PocketBase logs: method, url, status, time, agent, auth, address', async () => {
    const guest = sdk.client();
    await guest.collection('notes').getList(1, 5, { filter: "title ~ 'marker-list'" });
    await failure(guest.collection('notes').getOne('nosuchrecord123'));
    const logs = await allLogs();
    const list = logs.find((l) => l.message.startsWith('GET /api/collections/notes/records?') && String(l.data.url).includes('marker-list'));
    expect(list).toBeDefined();
    expect(list!.level).toBe(0);
    expect(list!.message).toContain("filter=title ~ 'marker-list'"); // the message's path is unescaped, as PocketBase's
    expect(list!.data).toMatchObject({ type: 'request', method: 'GET', status: 200, auth: '', remoteIP: '127.0.0.1', userIP: '127.0.0.1' });
    expect(typeof list!.data.execTime).toBe('number');
    expect(list!.data.userAgent).toEqual(expect.any(String));
    expect(list!.data).not.toHaveProperty('authId'); // logAuthId is off by default
    expect(list!.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);

    const missing = logs.find((l) => l.message === 'GET /api/collections/notes/records/nosuchrecord123');
    expect(missing).toBeDefined();
    expect(missing!.level).toBe(8);
    expect(missing!.data).toMatchObject({ status: 404, error: expect.any(String), details: {} });
  });

  it('behind a trusted proxy logs the address it names as userIP and the socket\'s as remoteIP', async () => {
    await sdk.admin.settings.update({ trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: false } });
    try {
      const r = await fetch(`${sdk.server.url}/api/collections/notes/records?filter=${encodeURIComponent("title = 'marker-proxy'")}`, { headers: { 'x-forwarded-for': '203.0.113.7', 'user-agent': 'marker-agent/1.0', referer: 'http://example.test/page' } });
      expect(r.status).toBe(200);
      const log = (await allLogs()).find((l) => String(l.data.url).includes('marker-proxy'));
      expect(log!.data).toMatchObject({ userIP: '203.0.113.7', remoteIP: '127.0.0.1', userAgent: 'marker-agent/1.0', referer: 'http://example.test/page' });
    } finally {
      await sdk.admin.settings.update({ trustedProxy: { headers: [], useLeftmostIP: false } });
    }
  });

  it("logs the caller's auth collection, and its id only with logAuthId", async () => {
    await user.collection('notes').getList(1, 1, { filter: "title = 'marker-auth-1'" });
    let log = (await allLogs()).find((l) => String(l.data.url).includes('marker-auth-1'));
    expect(log!.data.auth).toBe('users');
    expect(log!.data).not.toHaveProperty('authId');

    await sdk.admin.settings.update({ logs: { logAuthId: true, logIP: false } });
    try {
      await user.collection('notes').getList(1, 1, { filter: "title = 'marker-auth-2'" });
      log = (await allLogs()).find((l) => String(l.data.url).includes('marker-auth-2'));
      expect(log!.data.authId).toBe(user.authStore.record!.id);
      expect(log!.data).not.toHaveProperty('remoteIP');
      expect(log!.data).not.toHaveProperty('userIP');
    } finally {
      await sdk.admin.settings.update({ logs: { logAuthId: false, logIP: true } });
    }
  });

  it('never logs a password, a token or an OAuth2 code', async () => {
    const secretToken = 'file-token-SECRET-4711';
    await fetch(`${sdk.server.url}/api/files/notes/abc/x.png?thumb=100x100&token=${secretToken}`);
    await fetch(`${sdk.server.url}/api/oauth2-redirect?code=CODE-SECRET-1&state=STATE-SECRET-2`);
    await fetch(`${sdk.server.url}/api/health?api_key=KEY-SECRET-3&Password=PW-SECRET-4&fine=kept`);
    await failure(sdk.client().collection('users').authWithPassword(USER.email, 'wrong password SECRET-5'));
    await sdk.client().collection('users').authWithPassword(USER.email, USER.password);
    const logs = await allLogs();
    const text = JSON.stringify(logs);
    for (const secret of [secretToken, 'CODE-SECRET-1', 'STATE-SECRET-2', 'KEY-SECRET-3', 'PW-SECRET-4', 'SECRET-5', USER.password]) expect(text).not.toContain(secret);
    const file = logs.find((l) => String(l.data.url).startsWith('/api/files/notes/abc/x.png'));
    expect(file!.data.url).toBe('/api/files/notes/abc/x.png?thumb=100x100&token=[redacted]');
    expect(file!.message).toBe('GET /api/files/notes/abc/x.png?thumb=100x100&token=[redacted]');
    const health = logs.find((l) => String(l.data.url).startsWith('/api/health?'));
    expect(health!.data.url).toBe('/api/health?api_key=[redacted]&Password=[redacted]&fine=kept');
    // the sign-ins are logged (the failed one as an error), their bodies never
    const signIns = logs.filter((l) => l.message === 'POST /api/collections/users/auth-with-password');
    expect(signIns.map((l) => l.data.status)).toEqual(expect.arrayContaining([200, 400]));
    expect(signIns.find((l) => l.data.status === 400)!.level).toBe(8);
  });

  it("never logs a secret of the referring page's query (a same-origin page such as /reset?token=...)", async () => {
    // a browser sends a same-origin page's whole URL as the Referer of the API calls it makes
    const referer = `${sdk.server.url}/reset-password?token=REFERER-SECRET-6&lang=en`;
    await fetch(`${sdk.server.url}/api/health?marker=referer`, { headers: { referer } });
    await fetch(`${sdk.server.url}/api/collections/notes/records/missing1234567?marker=referer`, { headers: { referer } });
    const logs = (await allLogs()).filter((l) => String(l.data.url).includes('marker=referer'));
    expect(logs).toHaveLength(2);
    expect(JSON.stringify(logs)).not.toContain('REFERER-SECRET-6');
    for (const l of logs) expect(l.data.referer).toBe(`${sdk.server.url}/reset-password?token=[redacted]&lang=en`);
  });

  it("does not log the logs' own successful reads, as PocketBase; their failures it does", async () => {
    await flushed();
    const before = await sdk.admin.logs.getList(1, 1);
    await sdk.admin.logs.getList(1, 1);
    await sdk.admin.logs.getStats();
    await failure(sdk.admin.logs.getList(1, 1, { filter: 'nosuchfield = 1' }));
    await flushed();
    const after = await sdk.admin.logs.getList(1, 5, { sort: '-@rowid' });
    expect(after.totalItems).toBe(before.totalItems + 1);
    expect(after.items[0].message).toBe('GET /api/logs?page=1&perPage=1&filter=nosuchfield = 1');
    expect(after.items[0].data.status).toBe(400);
  });

  it('logs realtime subscriptions, not the event stream itself (as PocketBase)', async () => {
    const pb = sdk.client();
    const unsubscribe = await pb.collection('notes').subscribe('*', () => undefined);
    try {
      const logs = await allLogs();
      expect(logs.some((l) => l.message === 'POST /api/realtime' && l.data.status === 204)).toBe(true);
      expect(logs.some((l) => l.message === 'GET /api/realtime')).toBe(false);
    } finally {
      await unsubscribe();
    }
  });
});

describe('GET /api/logs, /api/logs/stats, /api/logs/{id}', () => {
  it('are for superusers only: 401 for a guest, 403 for a user', async () => {
    const guest = sdk.client();
    expect((await failure(guest.logs.getList())).status).toBe(401);
    expect((await failure(guest.logs.getStats())).status).toBe(401);
    expect((await failure(guest.logs.getOne('abc'))).status).toBe(401);
    expect((await failure(user.logs.getList())).status).toBe(403);
    expect((await failure(user.logs.getStats())).status).toBe(403);
    expect((await failure(user.logs.getOne('abc'))).status).toBe(403);
  });

  it('lists with filter, sort, page and fields through the filter engine', async () => {
    const guest = sdk.client();
    for (let i = 0; i < 3; i++) await failure(guest.collection('notes').getOne(`marker-page-${i}`));
    await flushed();
    const page = await sdk.admin.logs.getList(1, 2, { filter: "data.status = 404 && data.url ~ 'marker-page-'", sort: '-created,-@rowid' });
    expect(page).toMatchObject({ page: 1, perPage: 2, totalItems: 3, totalPages: 2 });
    expect(page.items.map((l) => l.data.url)).toEqual(['/api/collections/notes/records/marker-page-2', '/api/collections/notes/records/marker-page-1']);
    expect(Object.keys(page.items[0])).toEqual(['id', 'created', 'data', 'message', 'level']);
    const second = await sdk.admin.logs.getList(2, 2, { filter: "data.status = 404 && data.url ~ 'marker-page-'", sort: '-created,-@rowid' });
    expect(second.items.map((l) => l.data.url)).toEqual(['/api/collections/notes/records/marker-page-0']);
    const errors = await sdk.admin.logs.getList(1, 100, { filter: 'level > 0' });
    expect(errors.items.length).toBeGreaterThan(0);
    expect(errors.items.every((l) => Number(l.level) === 8)).toBe(true);
    const picked = await sdk.admin.logs.getList(1, 1, { fields: 'id,message' });
    expect(Object.keys(picked.items[0])).toEqual(['id', 'message']);
  });

  it('answers a bad filter or sort with a 400 naming it, never a 500', async () => {
    const filter = await failure(sdk.admin.logs.getList(1, 1, { filter: 'level >' }));
    expect(filter.status).toBe(400);
    expect(filter.response.data.filter.code).toBe('validation_invalid_filter');
    const sort = await failure(sdk.admin.logs.getList(1, 1, { sort: 'nosuch' }));
    expect(sort.status).toBe(400);
    expect(sort.response.data.sort.code).toBe('validation_invalid_sort');
    expect((await failure(sdk.admin.logs.getStats({ filter: '((' }))).status).toBe(400);
  });

  it('views one log by id; an unknown id is a 404', async () => {
    const [first] = (await sdk.admin.logs.getList(1, 1)).items;
    const one = await sdk.admin.logs.getOne(first.id);
    expect(one).toEqual(first);
    expect((await failure(sdk.admin.logs.getOne('nosuchlog'))).status).toBe(404);
  });

  it('counts logs per hour, with a filter', async () => {
    await flushed();
    const all = await sdk.admin.logs.getStats();
    const total = (await sdk.admin.logs.getList(1, 1)).totalItems;
    expect(all.length).toBeGreaterThan(0);
    for (const item of all) expect(item.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:00:00\.000Z$/);
    expect(all.reduce((n, s) => n + s.total, 0)).toBe(total);
    const failed = await sdk.admin.logs.getStats({ filter: 'data.status >= 400' });
    const failedTotal = (await sdk.admin.logs.getList(1, 1, { filter: 'data.status >= 400' })).totalItems;
    expect(failed.reduce((n, s) => n + s.total, 0)).toBe(failedTotal);
    expect(failedTotal).toBeLessThan(total);
  });
});

describe('the logs settings', () => {
  it('are PocketBase defaults in GET /api/settings, and a negative maxDays is a 400', async () => {
    const settings = await sdk.admin.settings.getAll();
    expect(settings.logs).toEqual({ maxDays: 5, minLevel: 0, logIP: true, logAuthId: false });
    const bad = await failure(sdk.admin.settings.update({ logs: { maxDays: -1 } }));
    expect(bad.status).toBe(400);
    expect(bad.response.data.logs.maxDays.code).toBe('validation_min_greater_equal_than_required');
    const unknown = await failure(sdk.admin.settings.update({ logs: { maxSize: 3 } }));
    expect(unknown.response.data.logs.maxSize.code).toBe('validation_unknown_option');
  });

  it('minLevel keeps only logs at that level and up, and deletes those below', async () => {
    await sdk.admin.settings.update({ logs: { minLevel: 4 } });
    try {
      await sdk.server.logs.retain();
      await sdk.client().collection('notes').getList(1, 1, { filter: "title = 'marker-level-ok'" });
      await failure(sdk.client().collection('notes').getOne('marker-level-bad'));
      const logs = await allLogs();
      expect(logs.every((l) => l.level >= 4)).toBe(true);
      expect(logs.some((l) => String(l.data.url).includes('marker-level-bad'))).toBe(true);
      expect(logs.some((l) => String(l.data.url).includes('marker-level-ok'))).toBe(false);
    } finally {
      await sdk.admin.settings.update({ logs: { minLevel: 0 } });
    }
  });

  it('maxDays 0 keeps nothing: the kept logs are deleted and new ones are not logged', async () => {
    await sdk.admin.settings.update({ logs: { maxDays: 0 } });
    try {
      await sdk.server.logs.retain();
      await sdk.client().collection('notes').getList(1, 1, { filter: "title = 'marker-off'" });
      expect(await allLogs()).toEqual([]);
      expect((await sdk.admin.settings.getAll()).logs.maxDays).toBe(0);
    } finally {
      await sdk.admin.settings.update({ logs: { maxDays: 5 } });
    }
    await sdk.client().collection('notes').getList(1, 1, { filter: "title = 'marker-on'" });
    expect((await allLogs()).some((l) => String(l.data.url).includes('marker-on'))).toBe(true);
  });

  it('a superuser signs in with the settings as stored (ADMIN unchanged)', async () => {
    // the settings above were stored and read back (one row of _params): a fresh sign-in still works
    const pb = sdk.client();
    await pb.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    expect((await pb.settings.getAll()).logs.maxDays).toBe(5);
  });
});
