// PocketBase's impersonate through the official SDK over a real socket: superusers only, the token
// works as the record, lasts the given duration, and auth-refresh refuses it (PocketBase's 403).
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite();

async function makeUser(email: string): Promise<string> {
  const users = sdk.admin.collection('users');
  const u = await users.create({ email, password: 'password-123', passwordConfirm: 'password-123' });
  return u.id;
}

describe('impersonate', () => {
  it('gives a superuser a working token of the given duration that cannot be refreshed', async () => {
    const id = await makeUser('imp1@example.com');
    const before = Date.now();
    const as = await sdk.admin.collection('users').impersonate(id, 3600);
    expect(as.authStore.record?.id).toBe(id);
    expect(as.authStore.isValid).toBe(true);
    // the token's exp claim is the duration asked for
    const exp = JSON.parse(Buffer.from(as.authStore.token.split('.')[1]!, 'base64url').toString()).exp as number;
    expect(exp).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 3600 - 1);
    expect(exp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600 + 1);
    // it acts as the record (a users record viewing itself through the default rules)
    expect((await as.collection('users').getOne(id)).email).toBe('imp1@example.com');
    const err = await failure(as.collection('users').authRefresh());
    expect(err.status).toBe(403);
    expect(err.message).toBe('The current auth token is not refreshable.');
    // a refused refresh ends nothing: the token still works
    expect((await as.collection('users').getOne(id)).id).toBe(id);
  });

  it('duration 0 (or none) is the collection token duration, 7 days on Deskbase', async () => {
    const id = await makeUser('imp2@example.com');
    const res = await fetch(`${sdk.server.url}/api/collections/users/impersonate/${id}`, {
      method: 'POST', headers: { authorization: sdk.admin.authStore.token, 'content-type': 'application/json' }, body: '{}',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; record: { id: string } };
    expect(body.record.id).toBe(id);
    const exp = JSON.parse(Buffer.from(body.token.split('.')[1]!, 'base64url').toString()).exp as number;
    expect(Math.abs(exp - (Date.now() / 1000 + 604800))).toBeLessThan(5);
  });

  it('is refused to anyone but a superuser, and a normal sign-in still refreshes', async () => {
    const id = await makeUser('imp3@example.com');
    const user = sdk.client();
    await user.collection('users').authWithPassword('imp3@example.com', 'password-123');
    expect((await failure(user.collection('users').impersonate(id, 60))).status).toBe(403);
    expect((await failure(sdk.client().collection('users').impersonate(id, 60))).status).toBe(403);
    await user.collection('users').authRefresh();
    expect(user.authStore.isValid).toBe(true);
  });

  it('refuses bad durations and unknown records with PocketBase answers', async () => {
    const id = await makeUser('imp4@example.com');
    const post = (path: string, body: unknown) => fetch(`${sdk.server.url}/api/collections/${path}`, {
      method: 'POST', headers: { authorization: sdk.admin.authStore.token, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const neg = await post(`users/impersonate/${id}`, { duration: -1 });
    expect(neg.status).toBe(400);
    expect(((await neg.json()) as { data: Record<string, unknown> }).data.duration).toBeDefined();
    expect((await post(`users/impersonate/${id}`, { duration: 'long' })).status).toBe(400);
    expect((await post(`users/impersonate/${id}`, { duration: 1e15 })).status).toBe(400);
    expect((await post('users/impersonate/nosuchrecord123', { duration: 60 })).status).toBe(404);
    expect((await post(`posts_nope/impersonate/${id}`, { duration: 60 })).status).toBe(404);
  });

  it('a superuser can impersonate another superuser; that token cannot refresh either', async () => {
    const other = await sdk.admin.collection('_superusers').create({ email: 'second@example.com', password: 'password-123456', passwordConfirm: 'password-123456' });
    const as = await sdk.admin.collection('_superusers').impersonate(other.id, 120);
    expect(as.authStore.isSuperuser).toBe(true);
    expect((await as.collections.getFullList()).length).toBeGreaterThan(0);
    expect((await failure(as.collection('_superusers').authRefresh())).status).toBe(403);
  });
});
