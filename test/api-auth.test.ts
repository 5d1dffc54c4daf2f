import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './support/harness.js';

let h: Harness;
let su: string;
beforeEach(async () => {
  h = await harness();
  su = await h.superuser();
});
afterEach(async () => { await h.close(); });

async function signUp(email: string, password = 'password123', extra: Record<string, unknown> = {}) {
  const r = await h.req('POST', '/api/collections/users/records', { body: { email, password, passwordConfirm: password, ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe('auth-with-password', () => {
  it('returns a 43-character opaque token and the record without secrets', async () => {
    await signUp('ann@example.com', 'password123', { name: 'Ann' });
    const r = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ANN@example.com', password: 'password123' } });
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.body.record).toMatchObject({ email: 'ann@example.com', name: 'Ann', collectionName: 'users' });
    expect(r.body.record.password).toBeUndefined();
    expect(r.text).not.toMatch(/scrypt/);
  });

  it('every failure is the same 400', async () => {
    await signUp('ann@example.com');
    const wrongPw = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'nope-nope' } });
    const unknown = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'who@example.com', password: 'nope-nope' } });
    expect(wrongPw.status).toBe(400);
    expect(wrongPw.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    expect(unknown.body).toEqual(wrongPw.body);
  });

  it('authRule failures look like wrong passwords', async () => {
    await signUp('ann@example.com');
    const patch = await h.req('PATCH', '/api/collections/users', { token: su, body: { authRule: 'verified = true' } });
    expect(patch.status, patch.text).toBe(200);
    const r = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123' } });
    expect(r.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
  });

  it('blocks an account after ten failures, even with the right password', async () => {
    await signUp('ann@example.com');
    for (let i = 0; i < 10; i++) {
      const r = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: `wrong-${i}xx` } });
      expect(r.status).toBe(400);
    }
    const right = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'password123' } });
    expect(right.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
  });

  it('validates the body and the collection', async () => {
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: {} })).status).toBe(400);
    expect((await h.req('POST', '/api/collections/nope/auth-with-password', { body: { identity: 'a', password: 'b' } })).status).toBe(404);
  });

  it('supports another identity field with a unique index', async () => {
    const users = (await h.req('GET', '/api/collections/users', { token: su })).body;
    const fields = [...users.fields, { name: 'username', type: 'text' }];
    let r = await h.req('PATCH', '/api/collections/users', { token: su, body: { fields } });
    expect(r.status, r.text).toBe(200);
    const username = r.body.fields.find((f: { name: string }) => f.name === 'username');
    r = await h.req('PATCH', '/api/collections/users', { token: su, body: { identityFields: ['email', 'username'] } });
    expect(r.status).toBe(400);
    expect(r.body.data.identityFields.code).toBe('validation_missing_unique_constraint');
    r = await h.req('PATCH', '/api/collections/users', { token: su, body: { indexes: [{ name: 'idx_username', fields: [username.id], unique: true }], identityFields: ['email', 'username'] } });
    expect(r.status, r.text).toBe(200);
    await signUp('bob@example.com', 'password123', { username: 'bobby' });
    const login = await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'bobby', password: 'password123' } });
    expect(login.status).toBe(200);
  });
});

describe('sessions', () => {
  it('GET /session shows the current session, null when signed out', async () => {
    expect((await h.req('GET', '/api/session')).text).toBe('null');
    const r = await h.req('GET', '/api/session', { token: su });
    expect(r.body).toMatchObject({ current: true, record: { collectionName: '_superusers', email: 'admin@example.com' } });
    expect(Date.parse(r.body.expires) - Date.parse(r.body.created)).toBe(7 * 24 * 3600 * 1000);
  });

  it('lists sessions newest first and revokes one of them', async () => {
    const second = await h.signIn('_superusers', 'admin@example.com', 'correct horse');
    const list = await h.req('GET', '/api/sessions', { token: second });
    expect(list.body.items).toHaveLength(2);
    expect(list.body.items[0].current).toBe(true);
    expect(list.body.items[1].current).toBe(false);
    const other = list.body.items[1].id;
    expect((await h.req('DELETE', `/api/sessions/${other}`, { token: second })).status).toBe(204);
    expect((await h.req('GET', '/api/session', { token: su })).text).toBe('null');
    expect((await h.req('GET', '/api/sessions', { token: second })).body.items).toHaveLength(1);
  });

  it('cannot revoke another record\'s session', async () => {
    await signUp('ann@example.com');
    const ann = await h.signIn('users', 'ann@example.com', 'password123');
    const suSession = (await h.req('GET', '/api/session', { token: su })).body.id;
    expect((await h.req('DELETE', `/api/sessions/${suSession}`, { token: ann })).status).toBe(404);
    expect((await h.req('GET', '/api/session', { token: su })).body.id).toBe(suSession);
  });

  it('DELETE /session ends the session; the token stops working; 204 also when signed out', async () => {
    expect((await h.req('DELETE', '/api/session', { token: su })).status).toBe(204);
    expect((await h.req('GET', '/api/collections', { token: su })).status).toBe(401);
    expect((await h.req('DELETE', '/api/session')).status).toBe(204);
  });

  it('an invalid token acts as signed out', async () => {
    const r = await h.req('GET', '/api/collections/users/records', { token: 'x'.repeat(43) });
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]); // users' listRule `id = @request.auth.id` matches nothing for a guest
    expect((await h.req('GET', '/api/session', { token: 'garbage' })).text).toBe('null');
  });

  it('accepts the bare token in Authorization, as the PocketBase SDK sends it', async () => {
    const r = await h.req('GET', '/api/collections', { headers: { authorization: su } });
    expect(r.status).toBe(200);
  });

  it('auth-refresh extends the session and returns the record; wrong collection is 403', async () => {
    const r = await h.req('POST', '/api/collections/_superusers/auth-refresh', { token: su });
    expect(r.status).toBe(200);
    expect(r.body.token).toBe(su);
    expect(r.body.record.email).toBe('admin@example.com');
    expect((await h.req('POST', '/api/collections/users/auth-refresh', { token: su })).status).toBe(403);
    expect((await h.req('POST', '/api/collections/users/auth-refresh')).status).toBe(401);
  });

  it('a password change ends the record\'s other sessions but not the caller\'s', async () => {
    const ann = await signUp('ann@example.com');
    const a1 = await h.signIn('users', 'ann@example.com', 'password123');
    const a2 = await h.signIn('users', 'ann@example.com', 'password123');
    const bad = await h.req('PATCH', `/api/collections/users/records/${ann.id}`, { token: a1, body: { password: 'newpassword1', passwordConfirm: 'newpassword1' } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.oldPassword.code).toBe('validation_invalid_old_password');
    const ok = await h.req('PATCH', `/api/collections/users/records/${ann.id}`, { token: a1, body: { oldPassword: 'password123', password: 'newpassword1', passwordConfirm: 'newpassword1' } });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.req('GET', '/api/session', { token: a1 })).body.current).toBe(true);
    expect((await h.req('GET', '/api/session', { token: a2 })).text).toBe('null');
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'newpassword1' } })).status).toBe(200);
  });
});

describe('cookie mode', () => {
  const origin = { origin: 'http://localhost:8090' };
  it('sets the HttpOnly cookie, returns no token, and needs an Origin naming this site', async () => {
    const refused = await h.req('POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse', cookie: true } });
    expect(refused.status).toBe(400);
    const cross = await h.req('POST', '/api/collections/_superusers/auth-with-password', { headers: { origin: 'http://evil.test' }, body: { identity: 'admin@example.com', password: 'correct horse', cookie: true } });
    expect(cross.status).toBe(400);
    const r = await h.req('POST', '/api/collections/_superusers/auth-with-password', { headers: origin, body: { identity: 'admin@example.com', password: 'correct horse', cookie: true } });
    expect(r.status).toBe(200);
    expect(r.body.token).toBeUndefined();
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^service_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/);
    const value = cookie.split(';')[0];
    const me = await h.req('GET', '/api/session', { headers: { cookie: value } });
    expect(me.body.current).toBe(true);
    // state changes with the cookie need a same-site Origin
    const csrf = await h.req('POST', '/api/collections', { headers: { cookie: value, origin: 'http://evil.test' }, body: { name: 'x1' } });
    expect(csrf.status).toBe(403);
    const noOrigin = await h.req('POST', '/api/collections', { headers: { cookie: value }, body: { name: 'x1' } });
    expect(noOrigin.status).toBe(403);
    const same = await h.req('POST', '/api/collections', { headers: { cookie: value, ...origin }, body: { name: 'x1' } });
    expect(same.status).toBe(200);
    const refresh = await h.req('POST', '/api/collections/_superusers/auth-refresh', { headers: { cookie: value, ...origin } });
    expect(refresh.status).toBe(200);
    expect(refresh.body.token).toBeUndefined();
    expect(refresh.headers.get('set-cookie')).toMatch(/^service_session=/);
    const out = await h.req('DELETE', '/api/session', { headers: { cookie: value, ...origin } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await h.req('GET', '/api/session', { headers: { cookie: value } })).text).toBe('null');
  });
});

describe('auth-methods', () => {
  it('lists password sign-in with the identity fields, 404 for base collections', async () => {
    const r = await h.req('GET', '/api/collections/users/auth-methods');
    expect(r.body).toMatchObject({ password: { enabled: true, identityFields: ['email'] }, oauth2: { enabled: false } });
    await h.req('POST', '/api/collections', { token: su, body: { name: 'posts' } });
    expect((await h.req('GET', '/api/collections/posts/auth-methods')).status).toBe(404);
  });
});

describe('revoking the current cookie session', () => {
  it('DELETE /sessions/{current id} also removes the cookie', async () => {
    const origin = { origin: 'http://localhost:8090' };
    const r = await h.req('POST', '/api/collections/_superusers/auth-with-password', { headers: origin, body: { identity: 'admin@example.com', password: 'correct horse', cookie: true } });
    const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
    const me = await h.req('GET', '/api/session', { headers: { cookie } });
    const out = await h.req('DELETE', `/api/sessions/${me.body.id}`, { headers: { cookie, ...origin } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^service_session=; .*Max-Age=0/);
    expect((await h.req('GET', '/api/session', { headers: { cookie } })).text).toBe('null');
  });
});

describe('FailureLimiter', () => {
  it('blocks after ten failures for the rest of the 15-minute window, then opens again', async () => {
    const { FailureLimiter, FAILURE_WINDOW_MS } = await import('../server/core/sign-in-limiter.js');
    let now = 1_000_000;
    const limiter = new FailureLimiter(() => now);
    const fail = (key: string) => limiter.settle(limiter.reserve(key)!, false);
    const blocked = (key: string) => {
      const attempt = limiter.reserve(key);
      if (attempt) limiter.settle(attempt, true); // a probe that succeeds would reset the count: undo it
      return attempt === null;
    };
    for (let i = 0; i < 9; i++) fail('a');
    expect(limiter.reserve('a')).not.toBeNull(); // the tenth attempt may run...
    expect(limiter.reserve('a')).toBeNull(); // ...and while it runs, an eleventh may not
    now += FAILURE_WINDOW_MS; // (the two reservations above lapse with their window)
    for (let i = 0; i < 10; i++) fail('a');
    expect(blocked('a')).toBe(true);
    expect(blocked('b')).toBe(false);
    now += FAILURE_WINDOW_MS - 1;
    expect(blocked('a')).toBe(true);
    now += 1;
    expect(blocked('a')).toBe(false);
  });
});
