// Sign-in and session hardening: cookie sessions refuse cross-site state changes, the sign-in block
// holds (per account, any spelling of the e-mail, for the rest of the window), unknown identities and
// wrong passwords take the same time, and sessions are stored as hashes only.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../server/core/index.js';
import { createApp } from '../server/http/app.js';
import { openStore, type Store } from '../server/store/db.js';
import type { Res } from './support/harness.js';

/** An in-process app on a fake clock (the failure window is 15 minutes). */
interface Clocked {
  store: Store;
  now: { t: number };
  req(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; token?: string }): Promise<Res>;
}

let app: Clocked;
beforeEach(async () => {
  const store = await openStore({ dir: null });
  const now = { t: Date.parse('2030-01-01T00:00:00Z') };
  let setup = '';
  const core = await createCore(store, { onSetupToken: (t) => (setup = t), now: () => now.t });
  core.setup.issue();
  const h3 = createApp(core, { uiDir: null });
  const req: Clocked['req'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { host: 'localhost:8090', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await h3.request(`http://localhost:8090${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, text };
  };
  app = { store, now, req };
  expect((await req('POST', '/api/setup', { body: { token: setup, email: 'admin@example.com', password: 'correct horse' } })).status).toBe(200);
  for (const email of ['ann@example.com', 'bob@example.com']) {
    expect((await req('POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } })).status).toBe(200);
  }
});
afterEach(async () => { await app.store.close(); });

const signIn = (identity: string, password: string, extra: { headers?: Record<string, string>; cookie?: boolean } = {}) =>
  app.req('POST', '/api/collections/users/auth-with-password', { body: { identity, password, ...(extra.cookie ? { cookie: true } : {}) }, headers: extra.headers });

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

describe('the sign-in block', () => {
  const fail = (identity = 'ann@example.com') => signIn(identity, 'wrong password');

  it('ten failures block the account for the rest of the 15-minute window, answering like a wrong password', async () => {
    const wrong = await fail();
    for (let i = 1; i < 10; i++) await fail(i % 2 ? 'ANN@example.com' : 'ann@EXAMPLE.com'); // any spelling counts
    const blocked = await signIn('ann@example.com', 'password123');
    expect(blocked.status).toBe(wrong.status);
    expect(blocked.body).toEqual(wrong.body);
    expect(blocked.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    // other accounts are not affected
    expect((await signIn('bob@example.com', 'password123')).status).toBe(200);
    app.now.t += 14 * 60 * 1000;
    expect((await signIn('ann@example.com', 'password123')).status).toBe(400);
    app.now.t += 60 * 1000 + 1;
    expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
  });

  it('nine failures do not block, and a success starts the count again', async () => {
    for (let i = 0; i < 9; i++) await fail();
    expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
    for (let i = 0; i < 9; i++) await fail();
    expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
  });

  it('failures against unknown e-mails block nobody real', async () => {
    for (let i = 0; i < 12; i++) await fail(`nobody${i % 2}@example.com`);
    expect((await signIn('ann@example.com', 'password123')).status).toBe(200);
  });
});

describe('timing', () => {
  it('unknown identities and wrong passwords take about the same time (each costs one hash)', async () => {
    const time = async (identity: string) => {
      const t0 = performance.now();
      await signIn(identity, 'wrong password');
      return performance.now() - t0;
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    // interleaved so that load on the machine hits both alike; different accounts so none is blocked
    for (let i = 0; i < 8; i++) {
      unknown.push(await time(`ghost${i}@example.com`));
      wrong.push(await time(i % 2 ? 'ann@example.com' : 'bob@example.com'));
    }
    const mean = (xs: number[]) => xs.reduce((a, c) => a + c, 0) / xs.length;
    const ratio = mean(unknown) / mean(wrong);
    expect(mean(wrong)).toBeGreaterThan(10); // a real hash ran
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});

describe('sessions at rest', () => {
  it('stores only the SHA-256 of each token, and no column holds the token', async () => {
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push((await signIn('ann@example.com', 'password123')).body.token as string);
    const rows = app.store.all<Record<string, unknown>>('SELECT * FROM "_sessions"');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const hashes = rows.map((r) => r.tokenHash);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(hashes).toContain(createHash('sha256').update(token).digest('hex'));
    }
    const everything = Buffer.from(app.store.backup()).toString('latin1');
    for (const token of tokens) expect(everything).not.toContain(token);
    expect(everything).not.toContain('password123');
  });

  it('a stolen hash is not a token', async () => {
    await signIn('ann@example.com', 'password123');
    const hash = app.store.get<{ tokenHash: string }>('SELECT "tokenHash" FROM "_sessions" LIMIT 1')!.tokenHash;
    expect((await app.req('GET', '/api/session', { token: hash })).text).toBe('null');
  });
});
