// Server-side sessions: listing and revoking them, refresh, bearer and cookie modes (cookies need this
// site's Origin for changes), tokens stored as hashes only, and the events that end sessions (sign-out,
// a password change, a changed authRule).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness, type Res, signUpUser } from '../support/harness.js';
import { scenarios, type Scenario } from '../support/scenario.js';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../server/core/index.js';
import { openStore } from '../../server/store/db.js';
import { type Clocked, clockedApp } from '../support/clocked-app.js';
import { TEST_ENGINE } from '../support/test-store.js';

/** The superuser's session, and what a row's `before` adds (another session, Ann's...). */
interface Signed {
  su: string;
  second?: string;
  other?: string;
  ann?: string;
  annId?: string;
  a2?: string;
  suSession?: string;
}
const signed = async (h: Harness): Promise<Signed> => ({ su: await h.superuser() });
/** The superuser signed in a second time (the row's caller). */
const secondSession = async (h: Harness, c: Signed) => { c.second = await h.signIn('_superusers', 'admin@example.com', 'correct horse'); };
/** Ann, signed up and signed in twice. */
const annTwice = async (h: Harness, c: Signed) => {
  c.annId = String((await signUpUser(h, 'ann@example.com')).id);
  c.ann = await h.signIn('users', 'ann@example.com', 'password123');
  c.a2 = await h.signIn('users', 'ann@example.com', 'password123');
};
const sessionOf = async (h: Harness, token?: string, cookie?: string) => h.req('GET', '/api/session', { token, headers: cookie ? { cookie } : {} });
const SIGNED_OUT = (r: Res) => { expect(r.text).toBe('null'); };

describe('server-side sessions', () => {
  scenarios(signed, [
    { name: 'GET /session is null when signed out', method: 'GET', url: '/api/session', status: 200, after: SIGNED_OUT },
    {
      name: 'GET /session shows the current session, for seven days',
      method: 'GET', url: '/api/session', token: (c) => c.su, status: 200,
      match: { current: true, record: { collectionName: '_superusers', email: 'admin@example.com' } },
      after: (r) => { expect(Date.parse(r.body.expires) - Date.parse(r.body.created)).toBe(7 * 24 * 3600 * 1000); },
    },
    {
      name: 'lists sessions newest first',
      before: secondSession,
      method: 'GET', url: '/api/sessions', token: (c) => c.second, status: 200,
      match: { items: [{ current: true }, { current: false }] },
    },
    {
      name: 'revokes one of them: its token stops working',
      before: async (h, c) => {
        await secondSession(h, c);
        c.other = (await h.req('GET', '/api/sessions', { token: c.second })).body.items[1].id;
      },
      method: 'DELETE', url: (c) => `/api/sessions/${c.other}`, token: (c) => c.second, status: 204,
      after: async (_r, h, c) => {
        SIGNED_OUT(await sessionOf(h, c.su));
        expect((await h.req('GET', '/api/sessions', { token: c.second })).body.items).toHaveLength(1);
      },
    },
    {
      name: 'cannot revoke another record\'s session',
      before: async (h, c) => {
        await annTwice(h, c);
        c.suSession = (await sessionOf(h, c.su)).body.id;
      },
      method: 'DELETE', url: (c) => `/api/sessions/${c.suSession}`, token: (c) => c.ann, status: 404,
      after: async (_r, h, c) => { expect((await sessionOf(h, c.su)).body.id).toBe(c.suSession); },
    },
    {
      name: 'DELETE /session ends the session; the token stops working',
      method: 'DELETE', url: '/api/session', token: (c) => c.su, status: 204,
      after: async (_r, h, c) => { expect((await h.req('GET', '/api/collections', { token: c.su })).status).toBe(401); },
    },
    { name: 'DELETE /session is a 204 also when signed out', method: 'DELETE', url: '/api/session', status: 204 },
    {
      // users' listRule `id = @request.auth.id` matches nothing for a guest
      name: 'an invalid token acts as signed out',
      method: 'GET', url: '/api/collections/users/records', token: 'x'.repeat(43), status: 200, match: { items: [] },
    },
    { name: 'GET /session with a garbage token is null', method: 'GET', url: '/api/session', token: 'garbage', status: 200, after: SIGNED_OUT },
    {
      name: 'accepts the bare token in Authorization, as the PocketBase SDK sends it',
      method: 'GET', url: '/api/collections', headers: (c) => ({ authorization: c.su }), status: 200,
    },
    {
      name: 'auth-refresh extends the session and returns the record',
      method: 'POST', url: '/api/collections/_superusers/auth-refresh', token: (c) => c.su, status: 200,
      match: (c) => ({ token: c.su, record: { email: 'admin@example.com' } }),
    },
    { name: 'auth-refresh of another collection is a 403', method: 'POST', url: '/api/collections/users/auth-refresh', token: (c) => c.su, status: 403 },
    { name: 'auth-refresh signed out is a 401', method: 'POST', url: '/api/collections/users/auth-refresh', status: 401 },
    {
      name: 'a password change without the old password is refused',
      before: annTwice,
      method: 'PATCH', url: (c) => `/api/collections/users/records/${c.annId}`, token: (c) => c.ann,
      body: { password: 'newpassword1', passwordConfirm: 'newpassword1' },
      status: 400, match: { data: { oldPassword: { code: 'validation_invalid_old_password' } } },
    },
    {
      name: 'a password change ends the record\'s other sessions but not the caller\'s',
      before: annTwice,
      method: 'PATCH', url: (c) => `/api/collections/users/records/${c.annId}`, token: (c) => c.ann,
      body: { oldPassword: 'password123', password: 'newpassword1', passwordConfirm: 'newpassword1' },
      status: 200,
      after: async (_r, h, c) => {
        expect((await sessionOf(h, c.ann)).body.current).toBe(true);
        SIGNED_OUT(await sessionOf(h, c.a2));
        expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: 'newpassword1' } })).status).toBe(200);
      },
    },
  ]);

  describe('last activity', () => {
    let h: Harness;
    let su: string;
    eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

    it('tells when each session was last active: its sign-in, then the last request it made', async () => {
      const second = await h.signIn('_superusers', 'admin@example.com', 'correct horse');
      const before = (await h.req('GET', '/api/sessions', { token: second })).body.items as Array<{ id: string; created: string; lastActive: string; current: boolean }>;
      const other = before.find((s) => !s.current)!;
      await new Promise((r) => setTimeout(r, 20)); // the clock moves on (a time is compared, not the server's state)
      await h.req('GET', '/api/collections', { token: su });
      const after = (await h.req('GET', '/api/sessions', { token: second })).body.items as typeof before;
      const used = after.find((s) => s.id === other.id)!;
      expect(Date.parse(used.lastActive)).toBeGreaterThan(Date.parse(other.lastActive));
      expect(Date.parse(used.lastActive)).toBeGreaterThan(Date.parse(used.created));
    });
  });
});

describe('cookie mode', () => {
  const ORIGIN = { origin: 'http://localhost:8090' };
  const SIGN_IN = '/api/collections/_superusers/auth-with-password';
  const credentials = { identity: 'admin@example.com', password: 'correct horse', cookie: true };
  /** The superuser's cookie session (`name=value`). */
  const cookied = async (h: Harness): Promise<{ cookie: string }> => {
    await h.superuser();
    const r = await h.req('POST', SIGN_IN, { headers: ORIGIN, body: credentials });
    expect(r.status, r.text).toBe(200);
    return { cookie: (r.headers.get('set-cookie') ?? '').split(';')[0] };
  };
  const withCookie = (extra: Record<string, string> = {}) => (c: { cookie: string }) => ({ cookie: c.cookie, ...extra });
  const csrf = (name: string, headers: Record<string, string>): Scenario<{ cookie: string }> => ({
    name, method: 'POST', url: '/api/collections', headers: withCookie(headers), body: { name: 'x1' }, status: 403,
  });

  scenarios(cookied, [
    { name: 'a cookie sign-in without an Origin is refused', method: 'POST', url: SIGN_IN, body: credentials, status: 400 },
    { name: 'a cookie sign-in from another site is refused', method: 'POST', url: SIGN_IN, headers: { origin: 'http://evil.test' }, body: credentials, status: 400 },
    {
      name: 'a cookie sign-in from this site sets the HttpOnly cookie, returns no token, and the cookie signs in',
      method: 'POST', url: SIGN_IN, headers: ORIGIN, body: credentials, status: 200,
      after: async (r, h) => {
        expect(r.body.token).toBeUndefined();
        const cookie = r.headers.get('set-cookie') ?? '';
        // a superuser's token claims `type` (session-token.ts)
        expect(cookie).toMatch(/^service_session=[A-Za-z0-9_-]{10}\.eyJ0eXBlIjoiYXV0aCJ9\.[A-Za-z0-9_-]{11}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/);
        expect((await sessionOf(h, undefined, cookie.split(';')[0])).body.current).toBe(true);
      },
    },
    csrf('a state change with the cookie from another site is refused', { origin: 'http://evil.test' }),
    csrf('a state change with the cookie and no Origin is refused', {}),
    { name: 'a state change with the cookie from this site is allowed', method: 'POST', url: '/api/collections', headers: withCookie(ORIGIN), body: { name: 'x1' }, status: 200 },
    {
      name: 'auth-refresh with the cookie answers a new cookie, no token',
      method: 'POST', url: '/api/collections/_superusers/auth-refresh', headers: withCookie(ORIGIN), status: 200,
      after: (r) => {
        expect(r.body.token).toBeUndefined();
        expect(r.headers.get('set-cookie')).toMatch(/^service_session=/);
      },
    },
    {
      name: 'DELETE /session with the cookie ends it and removes the cookie',
      method: 'DELETE', url: '/api/session', headers: withCookie(ORIGIN), status: 204,
      after: async (r, h, c) => {
        expect(r.headers.get('set-cookie')).toMatch(/Max-Age=0/);
        SIGNED_OUT(await sessionOf(h, undefined, c.cookie));
      },
    },
    {
      name: 'DELETE /sessions/{current id} also removes the cookie',
      before: async (h, c) => { Object.assign(c, { id: (await sessionOf(h, undefined, c.cookie)).body.id }); },
      method: 'DELETE', url: (c) => `/api/sessions/${(c as { id?: string }).id}`, headers: withCookie(ORIGIN), status: 204,
      after: async (r, h, c) => {
        expect(r.headers.get('set-cookie')).toMatch(/^service_session=; .*Max-Age=0/);
        SIGNED_OUT(await sessionOf(h, undefined, c.cookie));
      },
    },
  ]);
});

describe('cookies and sessions at rest', () => {
  let app: Clocked;
  beforeEach(async () => {
    app = await clockedApp();
  });
  afterEach(async () => { await app.close(); });

  const signIn: Clocked['signIn'] = (...args) => app.signIn(...args);

  describe('cookie sessions and cross-site requests', () => {
    const site = 'http://localhost:8090';
    async function cookie(): Promise<string> {
      const r = await signIn('ann@example.com', 'password123', { cookie: true, headers: { origin: site } });
      expect(r.status).toBe(200);
      return (r.headers.get('set-cookie') ?? '').split(';')[0];
    }

    it.each([
      ['no Origin', undefined],
      ['Origin: null (sandboxed frames, file pages)', 'null'],
      ['another site', 'http://evil.test'],
      ['another port on this host', 'http://localhost:8091'],
      ['a look-alike host', 'http://localhost.evil.test:8090'],
      ['this host as a subdomain of another', 'http://localhost:8090.evil.test'],
      ['garbage', 'not a url'],
    ])('a state change with the cookie from %s is refused (403) and changes nothing', async (_name, origin) => {
      const c = await cookie();
      const headers: Record<string, string> = { cookie: c, ...(origin === undefined ? {} : { origin }) };
      const me = (await app.req('GET', '/api/session', { headers: { cookie: c } })).body.record.id as string;
      for (const [method, path, body] of [
        ['PATCH', `/api/collections/users/records/${me}`, { emailVisibility: true }],
        ['DELETE', `/api/collections/users/records/${me}`, undefined],
        ['POST', '/api/collections/users/auth-refresh', undefined],
        ['DELETE', '/api/session', undefined],
      ] as const) {
        const r = await app.req(method, path, { headers, body });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.body.message).toBe('Cross-site requests with the session cookie are not allowed.');
      }
      const still = await app.req('GET', `/api/collections/users/records/${me}`, { headers: { cookie: c } });
      expect(still.status).toBe(200);
      expect(still.body.emailVisibility).toBe(false);
    });

    it('the same request from this site is allowed, and a cookie sign-in needs this site\'s Origin', async () => {
      const c = await cookie();
      const me = (await app.req('GET', '/api/session', { headers: { cookie: c } })).body.record.id as string;
      expect((await app.req('PATCH', `/api/collections/users/records/${me}`, { headers: { cookie: c, origin: site }, body: { emailVisibility: true } })).status).toBe(200);
      for (const origin of [undefined, 'http://evil.test', 'null']) {
        const r = await signIn('ann@example.com', 'password123', { cookie: true, headers: origin ? { origin } : {} });
        expect(r.status).toBe(400);
        expect(r.headers.get('set-cookie')).toBeNull();
      }
    });
  });

  /** Everything the database holds, as text: SQLite's file, or every row of every PostgreSQL table. */
  async function storedText(clocked: Clocked): Promise<string> {
    if (TEST_ENGINE === 'sqlite') return Buffer.from((await clocked.store.backup()).bytes).toString('latin1');
    let out = '';
    for (const { t } of await clocked.store.all<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema()`)) {
      for (const { row } of await clocked.store.all<{ row: string }>(`SELECT CAST(x AS text) AS row FROM "${t}" AS x`)) out += `${row}\n`;
    }
    return out;
  }

  describe('sessions at rest', () => {
    it('stores only the SHA-256 of each token, and no column holds the token', async () => {
      const tokens = [];
      for (let i = 0; i < 3; i++) tokens.push((await signIn('ann@example.com', 'password123')).body.token as string);
      const rows = await app.store.all<Record<string, unknown>>('SELECT * FROM "_sessions"');
      expect(rows.length).toBeGreaterThanOrEqual(3);
      const hashes = rows.map((r) => r.tokenHash);
      for (const token of tokens) {
        expect(token).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{9}$/);
        expect(hashes).toContain(createHash('sha256').update(token.split('.')[0] + token.split('.')[2]).digest('hex'));
      }
      const everything = await storedText(app);
      for (const token of tokens) expect(everything).not.toContain(token.split('.')[0] + token.split('.')[2]);
      expect(everything).not.toContain('password123');
    });

    it('a stolen hash is not a token', async () => {
      await signIn('ann@example.com', 'password123');
      const hash = (await app.store.get<{ tokenHash: string }>('SELECT "tokenHash" FROM "_sessions" LIMIT 1'))!.tokenHash;
      expect((await app.req('GET', '/api/session', { token: hash })).text).toBe('null');
    });

    it('a data folder from before `issued` (and the index on expires) gets them on start; its sessions keep working', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'deskbase-sessions-'));
      try {
        const store = await openStore({ dir });
        // what an older version made: _sessions without the claims its earlier tokens carried
        await store.write((tx) => tx.run(`CREATE TABLE "_sessions" ("id" TEXT PRIMARY KEY NOT NULL, "tokenHash" TEXT NOT NULL UNIQUE,
          "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL, "created" TEXT NOT NULL, "expires" TEXT NOT NULL, "userAgent" TEXT NOT NULL DEFAULT '')`));
        await store.write((tx) => tx.run(`INSERT INTO "_sessions" VALUES ('s1', 'h', 'users', 'r1', '2026-01-01', '2099-01-01', '')`));
        await createCore(store);
        expect((await store.get<{ issued: string }>('SELECT "issued" FROM "_sessions" WHERE "id" = \'s1\''))?.issued).toBe('[]');
        // and the index a sign-in's sweep of expired sessions goes through (core/session-store.ts start)
        expect(await store.get(`SELECT 1 AS ok FROM pragma_index_list('_sessions') WHERE "name" = '_sessions_expires'`)).toEqual({ ok: 1 });
        await store.close();
        // the column came in a journaled write: the folder reopens with it
        const again = await openStore({ dir });
        expect((await again.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info('_sessions') WHERE "name" = 'issued'`))?.n).toBe(1);
        await createCore(again);
        await again.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('a changed authRule', () => {
  // A stricter authRule ends sessions at once. As PocketBase does when a collection's authRule changes (it
  // regenerates the collection's token secret), every session of that collection ends in the same
  // transaction as the change: an unverified user's token no longer works after `verified = true`,
  // instead of working for days. Other collections' sessions are untouched.

  interface Staffed { su: string; ann: string; sam: string; rules?: Record<string, unknown> }
  async function staffed(h: Harness): Promise<Staffed> {
    const su = await h.superuser();
    for (const email of ['ann@example.com', 'bob@example.com']) await signUpUser(h, email);
    const staff = await h.req('POST', '/api/collections', { token: su, body: { name: 'staff', type: 'auth', createRule: '' } });
    expect(staff.status, staff.text).toBe(200);
    expect((await h.req('POST', '/api/collections/staff/records', { body: { email: 'sam@example.com', password: 'password123', passwordConfirm: 'password123' } })).status).toBe(200);
    return { su, ann: await h.signIn('users', 'ann@example.com', 'password123'), sam: await h.signIn('staff', 'sam@example.com', 'password123') };
  }
  const emailOf = async (h: Harness, token: string) => (await sessionOf(h, token)).body?.record?.email;
  const stricter: Pick<Scenario<Staffed>, 'method' | 'url' | 'token' | 'body' | 'status'> = {
    method: 'PATCH', url: '/api/collections/users', token: (c) => c.su, body: { authRule: 'verified = true' }, status: 200,
  };

  scenarios(staffed, [
    {
      name: 'saving the collection without touching authRule signs nobody out',
      before: async (h, c) => {
        const users = (await h.req('GET', '/api/collections/users', { token: c.su })).body;
        c.rules = { listRule: users.listRule, authRule: users.authRule };
      },
      method: 'PATCH', url: '/api/collections/users', token: (c) => c.su, status: 200, body: (c) => c.rules!,
      after: async (_r, h, c) => { expect(await emailOf(h, c.ann)).toBe('ann@example.com'); },
    },
    {
      name: 'changing authRule ends the sessions of that collection at once',
      ...stricter,
      after: async (_r, h, c) => {
        SIGNED_OUT(await sessionOf(h, c.ann));
        // a guest again: the self-only listRule shows nothing
        expect((await h.req('GET', '/api/collections/users/records', { token: c.ann })).body.items).toEqual([]);
        expect((await h.req('POST', '/api/collections/users/auth-refresh', { token: c.ann })).status).toBe(401);
      },
    },
    {
      name: 'after a stricter authRule an unverified user cannot come back in',
      ...stricter,
      after: async (_r, h) => {
        expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'bob@example.com', password: 'password123' } })).status).toBe(400);
      },
    },
    {
      name: 'changing one collection\'s authRule leaves other collections and superusers signed in',
      ...stricter,
      after: async (_r, h, c) => {
        expect(await emailOf(h, c.sam)).toBe('sam@example.com');
        expect(await emailOf(h, c.su)).toBe('admin@example.com');
      },
    },
  ]);
});
