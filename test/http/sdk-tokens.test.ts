// Session tokens as the official PocketBase SDK reads them, over a real socket, per collection: a
// superuser's token claims `type` (isSuperuser, isValid), a users token its `exp` (isValid, cookies);
// a token is accepted only exactly as issued (one character changed anywhere: refused); what
// auth-refresh answers when the exp moves, and how long earlier copies keep working; tokens of the
// older kinds.
import { randomBytes } from 'node:crypto';
import { ClientResponseError, getTokenPayload } from 'pocketbase';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken, newId } from '../../server/core/ids.js';
import { EARLIER_TOKENS, SESSION_SECONDS } from '../../server/core/session-store.js';
import { ADMIN, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();

let usersId: string;
let annId: string;

/** The session row's expiry, in seconds, for the token's session. */
async function sessionExpiry(token: string): Promise<number> {
  const auth = await sdk.server.core.sessions.resolve(token);
  const row = auth ? await sdk.server.core.sessions.get(sdk.server.core.store, auth.sessionId) : undefined;
  if (!row) throw new Error('no live session for the token');
  return Math.floor(Date.parse(row.expires) / 1000);
}

/** The session a token names, as the server answers GET /api/session (null: signed out). */
async function sessionOf(token: string): Promise<string | null> {
  const r = await fetch(`${sdk.server.url}/api/session`, { headers: { authorization: token } });
  const body = (await r.json()) as { id: string } | null;
  return body?.id ?? null;
}

/** The Dart SDK's rule (auth_store.dart): three segments, base64 (either alphabet) JSON, numeric exp in the future. */
function dartIsValid(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const data = JSON.parse(Buffer.from(parts[1].replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8')) as { exp?: unknown };
  return typeof data.exp === 'number' && data.exp > Date.now() / 1000;
}

const asAnn = async () => {
  const pb = sdk.client();
  await pb.collection('users').authWithPassword('ann@example.com', 'password123');
  return pb;
};
const asAdmin = async () => {
  const pb = sdk.client();
  await pb.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  return pb;
};
const refused = async (promise: Promise<unknown>) => {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClientResponseError);
  return (err as ClientResponseError).status;
};

beforeAll(async () => {
  usersId = sdk.server.core.registry.get('users')!.id;
  annId = (await sdk.admin.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' })).id;
});
afterEach(() => { vi.useRealTimers(); });

describe('a superuser token', () => {
  it('claims `type`: 43 characters, isSuperuser and isValid true after sign-in and after refresh', async () => {
    const pb = await asAdmin();
    const { token } = pb.authStore;
    expect(token).toHaveLength(43);
    expect(token).toMatch(/^[A-Za-z0-9_-]{10}\.[A-Za-z0-9]{20}\.[A-Za-z0-9_-]{11}$/);
    expect(getTokenPayload(token)).toEqual({ type: 'auth' });
    expect(JSON.parse(atob(token.split('.')[1]))).toEqual({ type: 'auth' }); // browsers' atob reads it
    expect(pb.authStore.record).toMatchObject({ collectionName: '_superusers', collectionId: '_superusers', email: ADMIN.email });
    expect(pb.authStore.isSuperuser).toBe(true);
    expect(pb.authStore.isValid).toBe(true);
    await pb.collection('_superusers').authRefresh();
    expect(pb.authStore.isSuperuser).toBe(true);
    expect(pb.authStore.isValid).toBe(true);
    expect((await pb.collections.getList(1, 1)).items.length).toBe(1);
  });

  it('auth-refresh answers the same token, however far the session moved (it claims no expiry)', async () => {
    const pb = await asAdmin();
    const first = pb.authStore.token;
    const before = await sessionExpiry(first);
    // a day later, as far as the session knows
    const auth = (await sdk.server.core.sessions.resolve(first))!;
    const earlier = new Date(Date.now() + (SESSION_SECONDS - 86400) * 1000).toISOString();
    await sdk.server.core.store.write((tx) => tx.run('UPDATE "_sessions" SET "expires" = ? WHERE "id" = ?', [earlier, auth.sessionId]));
    const refreshed = await pb.collection('_superusers').authRefresh();
    expect(refreshed.token).toBe(first);
    expect(await sessionExpiry(first)).toBeGreaterThanOrEqual(before);
  });

  it('a user is never a superuser: the users token claims exp, and the record says users', async () => {
    const pb = await asAnn();
    expect(pb.authStore.isSuperuser).toBe(false);
    expect(pb.authStore.record?.collectionName).toBe('users');
    expect(getTokenPayload(pb.authStore.token)).toEqual({ exp: (await sessionExpiry(pb.authStore.token)) });
  });

  it('exportToCookie: without an exp the SDK dates the cookie 1970; with `expires` given it round-trips', async () => {
    const pb = await asAdmin();
    // the trade-off (README): the cookie the SDK makes by default is already expired for a browser
    expect(pb.authStore.exportToCookie()).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    const expires = new Date((await sessionExpiry(pb.authStore.token)) * 1000);
    const cookie = pb.authStore.exportToCookie({ secure: false, expires });
    expect(cookie).toContain(`Expires=${expires.toUTCString()}`);
    const restored = sdk.client();
    restored.authStore.loadFromCookie(cookie);
    expect(restored.authStore.isSuperuser).toBe(true);
    expect(restored.authStore.isValid).toBe(true);
    expect((await restored.collection('_superusers').authRefresh()).record.email).toBe(ADMIN.email);
  });

  it('of the earlier kind (8.24.9 claiming exp) keeps working, and a refresh makes it a `type` token', async () => {
    // what Deskbase issued to superusers before: the secret's hash, the session's exp in the claims
    const secret = randomBytes(13).toString('base64url').slice(0, 17);
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const claims = Buffer.from(JSON.stringify({ exp: Math.floor(Date.parse(expires) / 1000) })).toString('base64');
    const superuserId = (await sdk.server.core.store.get<{ id: string }>('SELECT "id" FROM "_superusers" LIMIT 1'))!.id;
    await sdk.server.core.store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
      [newId(), hashToken(secret), '_superusers', superuserId, new Date().toISOString(), expires, 'old'],
    ));
    const legacy = `${secret.slice(0, 8)}.${claims}.${secret.slice(8)}`;
    const pb = sdk.client();
    pb.authStore.save(legacy, { id: superuserId, collectionName: '_superusers', collectionId: '_superusers' });
    expect(pb.authStore.isSuperuser).toBe(false);
    expect(await sessionOf(legacy)).not.toBeNull();
    await pb.collection('_superusers').authRefresh();
    expect(pb.authStore.isSuperuser).toBe(true);
    expect(await sessionOf(pb.authStore.token)).not.toBeNull();
    expect(await sessionOf(legacy)).toBeNull(); // the session got a new secret
  });
});

describe('a users token', () => {
  it('claims the session expiry: 43 characters, valid for the JS and Dart SDKs', async () => {
    const pb = await asAnn();
    const { token } = pb.authStore;
    expect(token).toHaveLength(43);
    expect(token).toMatch(/^[A-Za-z0-9_-]{8}\.[A-Za-z0-9]{24}\.[A-Za-z0-9_-]{9}$/);
    expect(getTokenPayload(token)).toEqual({ exp: (await sessionExpiry(token)) });
    expect(JSON.parse(atob(token.split('.')[1]))).toEqual({ exp: (await sessionExpiry(token)) });
    expect(pb.authStore.isValid).toBe(true);
    expect(dartIsValid(token)).toBe(true);
  });

  it('two sign-ins never share a secret', async () => {
    const a = (await asAnn()).authStore.token;
    const b = (await asAnn()).authStore.token;
    const secret = (t: string) => t.split('.')[0] + t.split('.')[2];
    expect(secret(a)).not.toBe(secret(b));
  });

  it('exportToCookie then loadFromCookie keeps the session, the cookie dated by the exp', async () => {
    const pb = await asAnn();
    const cookie = pb.authStore.exportToCookie({ secure: false });
    expect(cookie).toContain(`Expires=${new Date((await sessionExpiry(pb.authStore.token)) * 1000).toUTCString()}`);
    const restored = sdk.client();
    restored.authStore.loadFromCookie(cookie);
    expect(restored.authStore.isValid).toBe(true);
    expect(restored.authStore.isSuperuser).toBe(false);
    expect(restored.authStore.token).toBe(pb.authStore.token);
    expect(restored.authStore.record?.email).toBe('ann@example.com');
    expect((await restored.send('/api/session', {})).record.id).toBe(annId);
  });

  it('isValid is false once the session expired, and the server agrees', async () => {
    const started = await sdk.server.core.store.write((tx) => sdk.server.core.sessions.start(tx, usersId, annId, 'test', Date.now() - SESSION_SECONDS * 1000 - 5000));
    const pb = sdk.client();
    pb.authStore.save(started.token, null);
    expect(pb.authStore.isValid).toBe(false);
    expect(await pb.send('/api/session', {})).toBeNull();
  });

  it('of the older unshaped kind keeps working, and a refresh gives it a shaped one', async () => {
    const legacy = randomBytes(32).toString('base64url');
    const now = Date.now();
    await sdk.server.core.store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
      [newId(), hashToken(legacy), usersId, annId, new Date(now).toISOString(), new Date(now + 3600_000).toISOString(), 'old'],
    ));
    const pb = sdk.client();
    pb.authStore.save(legacy, null);
    expect(pb.authStore.isValid).toBe(false); // what the SDK made of every token before
    expect((await pb.send('/api/session', {})).record.id).toBe(annId);
    await pb.collection('users').authRefresh();
    expect(pb.authStore.isValid).toBe(true);
    expect(getTokenPayload(pb.authStore.token).exp).toBe((await sessionExpiry(pb.authStore.token)));
    expect(await sdk.server.core.sessions.resolve(legacy)).toBeNull(); // the session got a new secret
  });

  it('authRefresh on a collection that is not the token\'s is 403, even a missing one', async () => {
    const pb = await asAnn();
    for (const name of ['_superusers', 'nope']) {
      const err = await pb.collection(name).authRefresh().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientResponseError);
      expect((err as ClientResponseError).status).toBe(403);
      expect((err as ClientResponseError).message).toBe('The request requires auth record from users collection.');
    }
  });
});

describe('auth-refresh when the exp moves', () => {
  // Date alone is faked (sockets and timers run as usual), so "the same second" is exact
  const at = (ms: number) => { vi.useFakeTimers({ toFake: ['Date'] }); vi.setSystemTime(ms); };
  const start = Math.floor(Date.now() / 1000) * 1000 + 100;

  it('within the same second answers the very token; a second later a new one, claiming the new exp', async () => {
    at(start);
    const pb = await asAnn();
    const first = pb.authStore.token;
    expect((await pb.collection('users').authRefresh()).token).toBe(first);
    at(start + 1000);
    const second = (await pb.collection('users').authRefresh()).token;
    expect(second).not.toBe(first);
    expect(getTokenPayload(second).exp).toBe(getTokenPayload(first).exp + 1);
    expect(getTokenPayload(second).exp).toBe((await sessionExpiry(second)));
    expect(pb.authStore.token).toBe(second);
    // one session: the earlier copy (requests in flight, other tabs, a cookie set by a concurrent
    // refresh) stays signed in until its own exp, and signing out ends both
    expect(await sessionOf(first)).toBe(await sessionOf(second));
    const other = sdk.client();
    other.authStore.save(first, pb.authStore.record);
    // a refresh through the earlier copy answers the session's current token
    at(start + 1500);
    expect((await other.collection('users').authRefresh()).token).toBe(second);
    await pb.send('/api/session', { method: 'DELETE' });
    expect(await sessionOf(first)).toBeNull();
    expect(await sessionOf(second)).toBeNull();
  });

  it('an earlier copy stops at its own exp, while the session and its current token go on', async () => {
    at(start);
    const pb = await asAnn();
    const first = pb.authStore.token;
    at(start + 60_000);
    const current = (await pb.collection('users').authRefresh()).token;
    at(getTokenPayload(first).exp * 1000 + 1000); // past the first token's claim, not the session's
    expect(await sessionOf(current)).not.toBeNull();
    expect(await sessionOf(first)).toBeNull();
    expect(await refused(sdk.client().send('/api/collections/users/auth-refresh', { method: 'POST', headers: { authorization: first } }))).toBe(401);
  });

  it(`keeps the last ${EARLIER_TOKENS} earlier copies; the one before them is refused`, async () => {
    at(start);
    const pb = await asAnn();
    const copies = [pb.authStore.token];
    for (let i = 1; i <= EARLIER_TOKENS + 1; i++) {
      at(start + i * 1000);
      copies.push((await pb.collection('users').authRefresh()).token);
    }
    expect(new Set(copies).size).toBe(copies.length);
    const sessions = await Promise.all(copies.map(sessionOf));
    expect(sessions[0]).toBeNull();
    expect(new Set(sessions.slice(1)).size).toBe(1);
    expect(sessions[1]).not.toBeNull();
  });
});

describe('a token is accepted only exactly as issued', () => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.';
  /** Every one-character change of `token`: at each position, the next character of the alphabet. */
  const variants = (token: string) => [...token].map((c, i) => token.slice(0, i) + ALPHABET[(ALPHABET.indexOf(c) + 1) % ALPHABET.length] + token.slice(i + 1));

  for (const [who, signIn, refresh] of [
    ['superuser', asAdmin, '_superusers'],
    ['users', asAnn, 'users'],
  ] as const) {
    it(`a ${who} token with any one character changed, in any segment, is refused (401)`, async () => {
      const pb = await signIn();
      const { token } = pb.authStore;
      const changed = variants(token);
      expect(changed).toHaveLength(43);
      const segments = new Set<number>();
      for (const [i, forged] of changed.entries()) {
        expect(forged).not.toBe(token);
        const status = await refused(sdk.client().send(`/api/collections/${refresh}/auth-refresh`, { method: 'POST', headers: { authorization: forged } }));
        expect(status, `position ${i}: ${forged}`).toBe(401);
        expect(await sessionOf(forged), `position ${i}`).toBeNull();
        segments.add(token.slice(0, i).split('.').length - 1);
      }
      expect([...segments].sort()).toEqual([0, 1, 2]);
      expect(await sessionOf(token)).not.toBeNull(); // the token as issued still is
    });
  }

  it('the secret alone, without its claims, is no token', async () => {
    for (const signIn of [asAdmin, asAnn]) {
      const [head, , tail] = (await signIn()).authStore.token.split('.');
      for (const bare of [head + tail, `${head}..${tail}`, `${head}.${tail}`]) expect(await sessionOf(bare), bare).toBeNull();
    }
  });

  it('claims written in by hand are refused, even a far exp or `type` on a users token', async () => {
    const pb = await asAnn();
    const [head, , tail] = pb.authStore.token.split('.');
    const far = `${head}.${Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64')}.${tail}`;
    const typed = `${head}.${Buffer.from(JSON.stringify({ type: 'auth' })).toString('base64')}.${tail}`;
    for (const forged of [far, typed]) {
      const other = sdk.client();
      other.authStore.save(forged, pb.authStore.record);
      expect(await other.send('/api/session', {})).toBeNull();
      expect(await refused(other.collection('users').authRefresh())).toBe(401);
    }
  });

  it('an expired session with a far exp written in stays signed out', async () => {
    const started = await sdk.server.core.store.write((tx) => sdk.server.core.sessions.start(tx, usersId, annId, 'test', Date.now() - SESSION_SECONDS * 1000 - 5000));
    const [head, , tail] = started.token.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64')}.${tail}`;
    const pb = sdk.client();
    pb.authStore.save(forged, null);
    expect(pb.authStore.isValid).toBe(true); // the SDK believes the claim
    expect(await pb.send('/api/session', {})).toBeNull(); // the server does not
    expect(await refused(pb.collection('users').authRefresh())).toBe(401);
  });
});
