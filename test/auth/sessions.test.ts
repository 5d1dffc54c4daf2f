// Server-side sessions: listing and revoking them, refresh, bearer and cookie modes (cookies need this
// site's Origin for changes), tokens stored as hashes only, and the events that end sessions (sign-out,
// a password change, a changed authRule).

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness, signUpUser } from '../support/harness.js';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../server/core/index.js';
import { openStore } from '../../server/store/db.js';
import { type Clocked, clockedApp } from '../support/clocked-app.js';
import type { RunningServer } from '../../server/index.js';
import { http, liveServer } from '../fixtures/hardening-http.js';

describe('server-side sessions', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const signUp = (email: string, password?: string, extra?: Record<string, unknown>) => signUpUser(h, email, password, extra);

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

    it('tells when each session was last active: its sign-in, then the last request it made', async () => {
      const second = await h.signIn('_superusers', 'admin@example.com', 'correct horse');
      const before = (await h.req('GET', '/api/sessions', { token: second })).body.items as Array<{ id: string; created: string; lastActive: string; current: boolean }>;
      const other = before.find((s) => !s.current)!;
      await new Promise((r) => setTimeout(r, 20));
      await h.req('GET', '/api/collections', { token: su });
      const after = (await h.req('GET', '/api/sessions', { token: second })).body.items as typeof before;
      const used = after.find((s) => s.id === other.id)!;
      expect(Date.parse(used.lastActive)).toBeGreaterThan(Date.parse(other.lastActive));
      expect(Date.parse(used.lastActive)).toBeGreaterThan(Date.parse(used.created));
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
      // a superuser's token claims `type` (session-token.ts)
      expect(cookie).toMatch(/^service_session=[A-Za-z0-9_-]{10}\.eyJ0eXBlIjoiYXV0aCJ9\.[A-Za-z0-9_-]{11}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/);
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
});

describe('cookies and sessions at rest', () => {
  let app: Clocked;
  beforeEach(async () => {
    app = await clockedApp();
  });
  afterEach(async () => { await app.store.close(); });

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
      const everything = Buffer.from((await app.store.backup()).bytes).toString('latin1');
      for (const token of tokens) expect(everything).not.toContain(token.split('.')[0] + token.split('.')[2]);
      expect(everything).not.toContain('password123');
    });

    it('a stolen hash is not a token', async () => {
      await signIn('ann@example.com', 'password123');
      const hash = (await app.store.get<{ tokenHash: string }>('SELECT "tokenHash" FROM "_sessions" LIMIT 1'))!.tokenHash;
      expect((await app.req('GET', '/api/session', { token: hash })).text).toBe('null');
    });

    it('a data folder from before `issued` gets the column on start; its sessions keep working', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'deskbase-sessions-'));
      try {
        const store = await openStore({ dir });
        // what an older version made: _sessions without the claims its earlier tokens carried
        await store.write((tx) => tx.run(`CREATE TABLE "_sessions" ("id" TEXT PRIMARY KEY NOT NULL, "tokenHash" TEXT NOT NULL UNIQUE,
          "collectionId" TEXT NOT NULL, "recordId" TEXT NOT NULL, "created" TEXT NOT NULL, "expires" TEXT NOT NULL, "userAgent" TEXT NOT NULL DEFAULT '')`));
        await store.write((tx) => tx.run(`INSERT INTO "_sessions" VALUES ('s1', 'h', 'users', 'r1', '2026-01-01', '2099-01-01', '')`));
        await createCore(store);
        expect((await store.get<{ issued: string }>('SELECT "issued" FROM "_sessions" WHERE "id" = \'s1\''))?.issued).toBe('[]');
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

  let server: RunningServer;
  let su: string;
  beforeAll(async () => {
    ({ server, su } = await liveServer());
    for (const email of ['ann@example.com', 'bob@example.com']) {
      expect((await http(server.url, 'POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } })).status).toBe(200);
    }
    const staff = await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'staff', type: 'auth', createRule: '' } });
    expect(staff.status, staff.text).toBe(200);
    expect((await http(server.url, 'POST', '/api/collections/staff/records', { body: { email: 'sam@example.com', password: 'password123', passwordConfirm: 'password123' } })).status).toBe(200);
  });
  afterAll(async () => { await server.close(); });

  const signIn = async (collection: string, identity: string) => {
    const r = await http(server.url, 'POST', `/api/collections/${collection}/auth-with-password`, { body: { identity, password: 'password123' } });
    expect(r.status, r.text).toBe(200);
    return r.body.token as string;
  };
  const session = (token: string) => http(server.url, 'GET', '/api/session', { token });

  describe('changing authRule', () => {
    it('ends the sessions of that collection at once; others and unchanged rules keep theirs', async () => {
      const ann = await signIn('users', 'ann@example.com');
      const sam = await signIn('staff', 'sam@example.com');
      expect((await session(ann)).body.record.email).toBe('ann@example.com');

      // saving the collection without touching authRule signs nobody out
      const users = (await http(server.url, 'GET', '/api/collections/users', { token: su })).body;
      expect((await http(server.url, 'PATCH', '/api/collections/users', { token: su, body: { listRule: users.listRule, authRule: users.authRule } })).status).toBe(200);
      expect((await session(ann)).body.record.email).toBe('ann@example.com');

      expect((await http(server.url, 'PATCH', '/api/collections/users', { token: su, body: { authRule: 'verified = true' } })).status).toBe(200);
      expect((await session(ann)).text).toBe('null');
      const own = await http(server.url, 'GET', '/api/collections/users/records', { token: ann });
      expect(own.body.items).toEqual([]); // a guest again: the self-only listRule shows nothing
      expect((await http(server.url, 'POST', '/api/collections/users/auth-refresh', { token: ann })).status).toBe(401);
      // an unverified user cannot come back in, other collections and superusers are still signed in
      expect((await http(server.url, 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'bob@example.com', password: 'password123' } })).status).toBe(400);
      expect((await session(sam)).body.record.email).toBe('sam@example.com');
      expect((await session(su)).body.record.email).toBe('admin@example.com');
    });
  });
});
