// A stricter authRule ends sessions at once. As PocketBase does when a collection's authRule changes (it
// regenerates the collection's token secret), every session of that collection ends in the same
// transaction as the change: an unverified user's token no longer works after `verified = true`,
// instead of working for days. Other collections' sessions are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/index.js';
import { http, liveServer } from './fixtures/hardening-http.js';

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
