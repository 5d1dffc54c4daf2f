import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './support/harness.js';

let h: Harness;
beforeEach(async () => { h = await harness(); });
afterEach(async () => { await h.close(); });

describe('health', () => {
  it('GET answers {status:"ok"}', async () => {
    const r = await h.req('GET', '/api/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
  it('HEAD answers 200 without a body', async () => {
    const r = await h.req('HEAD', '/api/health');
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });
});

describe('setup', () => {
  it('is required on a fresh data folder, and the system collections exist', async () => {
    expect((await h.req('GET', '/api/setup')).body).toEqual({ required: true });
    expect(h.core.registry.get('_superusers')?.system).toBe(true);
    const users = h.core.registry.get('users');
    expect(users?.type).toBe('auth');
    expect(users?.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['id', 'email', 'name', 'created', 'updated']));
  });

  it.each([
    ['missing token', { email: 'a@b.co', password: 'long enough' }, 403],
    ['wrong token', { token: 'nope', email: 'a@b.co', password: 'long enough' }, 403],
  ])('refuses a %s with 403 pointing at the log', async (_name, body, status) => {
    const r = await h.req('POST', '/api/setup', { body });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ status: 403, data: {} });
    expect(r.body.message).toMatch(/log/i);
  });

  it.each([
    ['short password', { email: 'a@b.co', password: 'short' }, 'password', 'validation_length_out_of_range'],
    ['missing password', { email: 'a@b.co' }, 'password', 'validation_required'],
    ['bad email', { email: 'not-an-email', password: 'long enough' }, 'email', 'validation_is_email'],
    ['missing email', { password: 'long enough' }, 'email', 'validation_required'],
  ])('400 with per-field codes for %s', async (_n, body, key, code) => {
    const r = await h.req('POST', '/api/setup', { body: { token: h.setupToken(), ...body } });
    expect(r.status).toBe(400);
    expect(r.body.data[key].code).toBe(code);
    expect((await h.req('GET', '/api/setup')).body.required).toBe(true);
  });

  it('creates the first superuser once, then answers 404 Not found.', async () => {
    const r = await h.req('POST', '/api/setup', { body: { token: h.setupToken(), email: 'Admin@Example.com', password: 'correct horse' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ collectionName: '_superusers', email: 'Admin@Example.com', verified: true });
    expect(r.body.password).toBeUndefined();
    expect((await h.req('GET', '/api/setup')).body).toEqual({ required: false });
    const again = await h.req('POST', '/api/setup', { body: { token: h.setupToken(), email: 'b@b.co', password: 'correct horse' } });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ status: 404, message: 'Not found.', data: {} });
  });

  it('an expired token is refused and a new one is issued at most once a minute', async () => {
    let now = Date.now();
    const { createCore } = await import('../server/core/index.js');
    const { openStore } = await import('../server/store/db.js');
    const tokens: string[] = [];
    const core = await createCore(await openStore({ dir: null }), { onSetupToken: (t) => tokens.push(t), now: () => now });
    core.setup.issue();
    expect(tokens).toHaveLength(1);
    core.setup.issue();
    expect(tokens).toHaveLength(1); // within the minute: same token
    now += 61 * 60 * 1000;
    await expect(core.setup.complete({ token: tokens[0], email: 'a@b.co', password: 'long enough' })).rejects.toMatchObject({ status: 403 });
    expect(tokens).toHaveLength(2);
    await expect(core.setup.complete({ token: tokens[1], email: 'a@b.co', password: 'long enough' })).resolves.toMatchObject({ email: 'a@b.co' });
  });
});

describe('errors', () => {
  it('unknown routes answer 404 Not found. in the envelope', async () => {
    const r = await h.req('GET', '/api/nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ status: 404, message: 'Not found.', data: {} });
  });
  it('malformed JSON is a 400, not a 500', async () => {
    const r = await h.req('POST', '/api/setup', { raw: '{"token":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.data).toEqual({});
  });
  it('a body over the limit is a 413', async () => {
    const big = 'x'.repeat(33 * 1024 * 1024);
    const r = await h.req('POST', '/api/setup', { raw: JSON.stringify({ token: big }), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.body.status).toBe(413);
  });
  it('CORS preflight is answered for other origins', async () => {
    const r = await h.req('OPTIONS', '/api/collections/users/records', { headers: { origin: 'http://192.168.1.5:3000', 'access-control-request-method': 'POST' } });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-headers')).toMatch(/authorization/);
  });
});

describe('setup races', () => {
  it('two concurrent POST /setup create exactly one superuser', async () => {
    const body = (email: string) => ({ body: { token: h.setupToken(), email, password: 'long enough' } });
    const [a, b] = await Promise.all([h.req('POST', '/api/setup', body('a@b.co')), h.req('POST', '/api/setup', body('b@b.co'))]);
    expect([a.status, b.status].sort()).toEqual([200, 404]);
    expect(h.core.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "_superusers"')?.n).toBe(1);
  });
});
