// Session tokens as the official PocketBase SDK reads them, over a real socket: isValid after sign-in
// and refresh and not once expired, the claimed exp equal to the session's expiry, the cookie round
// trip, isSuperuser, tokens of the older unshaped kind, and claims the server never trusts.
import { randomBytes } from 'node:crypto';
import PocketBase, { ClientResponseError, getTokenPayload } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newId } from '../../server/core/ids.js';
import { SESSION_SECONDS } from '../../server/core/session-store.js';
import type { RunningServer } from '../../server/index.js';
import { ADMIN, startSdkServer } from '../support/sdk-server.js';

let server: RunningServer;
let usersId: string;
let annId: string;
let client: () => PocketBase;

/** The session row's expiry, in seconds, for the token's session. */
function sessionExpiry(token: string): number {
  const auth = server.core.sessions.resolve(token);
  const row = auth ? server.core.sessions.get(server.core.store, auth.sessionId) : undefined;
  if (!row) throw new Error('no live session for the token');
  return Math.floor(Date.parse(row.expires) / 1000);
}

/** The Dart SDK's rule (auth_store.dart): three segments, base64 (either alphabet) JSON, numeric exp in the future. */
function dartIsValid(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const data = JSON.parse(Buffer.from(parts[1].replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8')) as { exp?: unknown };
  return typeof data.exp === 'number' && data.exp > Date.now() / 1000;
}

beforeAll(async () => {
  let admin: PocketBase;
  ({ server, admin, client } = await startSdkServer());
  usersId = server.core.registry.get('users')!.id;
  annId = (await admin.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' })).id;
});
afterAll(async () => { await server.close(); });

describe('tokens the SDK accepts', () => {
  it('are 43 characters in three segments whose claims hold the session expiry, valid for the JS and Dart SDKs', async () => {
    const pb = client();
    const { token } = await pb.collection('users').authWithPassword('ann@example.com', 'password123');
    expect(token).toHaveLength(43);
    expect(token.split('.')).toHaveLength(3);
    expect(getTokenPayload(token)).toEqual({ exp: sessionExpiry(token) });
    expect(pb.authStore.isValid).toBe(true);
    expect(dartIsValid(token)).toBe(true);
    // the middle segment is in atob's alphabet (no base64url characters), so browsers decode it too
    expect(token.split('.')[1]).toMatch(/^[A-Za-z0-9+/]+$/);
    expect(JSON.parse(atob(token.split('.')[1]))).toEqual({ exp: sessionExpiry(token) });
  });

  it('two sign-ins never share a secret', async () => {
    const a = await client().collection('users').authWithPassword('ann@example.com', 'password123');
    const b = await client().collection('users').authWithPassword('ann@example.com', 'password123');
    const secret = (t: string) => t.split('.')[0] + t.split('.')[2];
    expect(secret(a.token)).not.toBe(secret(b.token));
  });

  it('authRefresh answers a token claiming the extended expiry; the earlier copy names the same session', async () => {
    const pb = client();
    await pb.collection('users').authWithPassword('ann@example.com', 'password123');
    const first = pb.authStore.token;
    // move the session's expiry back a day so the refresh visibly extends it
    const auth = server.core.sessions.resolve(first)!;
    const earlier = new Date(Date.now() + (SESSION_SECONDS - 86400) * 1000).toISOString();
    await server.core.store.write((tx) => tx.run('UPDATE "_sessions" SET "expires" = ? WHERE "id" = ?', [earlier, auth.sessionId]));
    expect(sessionExpiry(first)).toBe(Math.floor(Date.parse(earlier) / 1000));
    await pb.collection('users').authRefresh();
    const second = pb.authStore.token;
    expect(pb.authStore.isValid).toBe(true);
    expect(getTokenPayload(second).exp).toBe(sessionExpiry(second));
    expect(getTokenPayload(second).exp).toBeGreaterThan(Date.parse(earlier) / 1000 + 86000);
    // one session, two spellings: both are signed in, and signing out ends it for both
    const other = client();
    other.authStore.save(first, pb.authStore.record);
    expect((await other.send('/api/session', {})).id).toBe((await pb.send('/api/session', {})).id);
    await pb.send('/api/session', { method: 'DELETE' });
    expect(await other.send('/api/session', {})).toBeNull();
  });

  it('isValid is false once the session expired, and the server agrees', async () => {
    const started = await server.core.store.write((tx) => server.core.sessions.start(tx, usersId, annId, 'test', Date.now() - SESSION_SECONDS * 1000 - 5000));
    const pb = client();
    pb.authStore.save(started.token, null);
    expect(pb.authStore.isValid).toBe(false);
    expect(await pb.send('/api/session', {})).toBeNull();
  });

  it('exportToCookie then loadFromCookie keeps the session', async () => {
    const pb = client();
    await pb.collection('users').authWithPassword('ann@example.com', 'password123');
    const cookie = pb.authStore.exportToCookie({ secure: false });
    expect(cookie).toContain(`Expires=${new Date(sessionExpiry(pb.authStore.token) * 1000).toUTCString()}`);
    const restored = client();
    restored.authStore.loadFromCookie(cookie);
    expect(restored.authStore.isValid).toBe(true);
    expect(restored.authStore.token).toBe(pb.authStore.token);
    expect(restored.authStore.record?.email).toBe('ann@example.com');
    expect((await restored.send('/api/session', {})).record.id).toBe(annId);
  });

  it('isSuperuser stays false (no room for a type claim): check record.collectionName instead', async () => {
    const pb = client();
    await pb.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    expect(pb.authStore.isValid).toBe(true);
    expect(pb.authStore.isSuperuser).toBe(false);
    expect(pb.authStore.record?.collectionName).toBe('_superusers');
  });

  it('a token of the older unshaped kind keeps working, and a refresh gives it a shaped one', async () => {
    const legacy = randomBytes(32).toString('base64url');
    const now = Date.now();
    await server.core.store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
      [newId(), hashToken(legacy), usersId, annId, new Date(now).toISOString(), new Date(now + 3600_000).toISOString(), 'old'],
    ));
    const pb = client();
    pb.authStore.save(legacy, null);
    expect(pb.authStore.isValid).toBe(false); // what the SDK made of every token before
    expect((await pb.send('/api/session', {})).record.id).toBe(annId);
    await pb.collection('users').authRefresh();
    expect(pb.authStore.isValid).toBe(true);
    expect(getTokenPayload(pb.authStore.token).exp).toBe(sessionExpiry(pb.authStore.token));
    // the session got a new secret: the unshaped token no longer names it
    expect(server.core.sessions.resolve(legacy)).toBeNull();
  });

  it('claims are never trusted: an expired session with a far exp written in stays signed out', async () => {
    const started = await server.core.store.write((tx) => server.core.sessions.start(tx, usersId, annId, 'test', Date.now() - SESSION_SECONDS * 1000 - 5000));
    const [head, , tail] = started.token.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64')}.${tail}`;
    const pb = client();
    pb.authStore.save(forged, null);
    expect(pb.authStore.isValid).toBe(true); // the SDK believes the claim
    expect(await pb.send('/api/session', {})).toBeNull(); // the server does not
    const err = await pb.collection('users').authRefresh().catch((e: unknown) => e);
    expect((err as ClientResponseError).status).toBe(401);
  });

  it('authRefresh on a collection that is not the token\'s is 403, even a missing one', async () => {
    const pb = client();
    await pb.collection('users').authWithPassword('ann@example.com', 'password123');
    for (const name of ['_superusers', 'nope']) {
      const err = await pb.collection(name).authRefresh().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientResponseError);
      expect((err as ClientResponseError).status).toBe(403);
      expect((err as ClientResponseError).message).toBe('The request requires auth record from users collection.');
    }
  });
});
