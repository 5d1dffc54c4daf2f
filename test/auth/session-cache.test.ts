// The sessions of tokens kept in memory (core/session-store.ts) outlive writes to other tables
// (store.tablesVersion) but never a write that changes what they hold: on a durable server, with
// records created between each step, a record changed by someone else, a session ended and a record
// deleted are seen by the very next request of the token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';

const dir = mkdtempSync(join(tmpdir(), 'deskbase-session-cache-'));
const sdk = sdkSuite({ dir });
afterAll(async () => {
  await sdk.server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** GET /api/session as the token: the caller's session, null for a guest. */
async function session(token: string): Promise<unknown> {
  const r = await fetch(`${sdk.server.url}/api/session`, { headers: { authorization: token } });
  expect(r.status).toBe(200);
  return r.json();
}

let first = '';
let second = '';
let firstId = '';
let secondId = '';

async function create(token: string, title: string): Promise<number> {
  const r = await fetch(`${sdk.server.url}/api/collections/notes/records`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify({ title }),
  });
  return r.status;
}

beforeAll(async () => {
  await sdk.admin.collections.create({ name: 'notes', type: 'base', createRule: "@request.auth.name = 'allowed'", fields: [{ name: 'title', type: 'text' }] });
  for (const email of ['first@example.com', 'second@example.com']) {
    await sdk.admin.collection('users').create({ email, name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
  }
  const sign = async (email: string) => {
    const pb = sdk.client();
    await pb.collection('users').authWithPassword(email, 'session cache 1');
    return [pb.authStore.token, pb.authStore.record!.id];
  };
  [first, firstId] = await sign('first@example.com');
  [second, secondId] = await sign('second@example.com');
});

describe('sessions kept across writes to other tables', () => {
  it('see the record as changed by another client at the next request', async () => {
    for (let i = 0; i < 3; i++) expect(await create(first, `kept ${i}`)).toBe(200);
    await sdk.admin.collection('users').update(firstId, { name: 'denied' });
    expect(await create(first, 'after the change')).toBe(400);
    expect(await create(second, 'another caller meanwhile')).toBe(200);
    await sdk.admin.collection('users').update(firstId, { name: 'allowed' });
    expect(await create(first, 'allowed again')).toBe(200);
  });

  it('stop at once when the session ends or the record is deleted', async () => {
    expect(await create(first, 'before sign-out')).toBe(200);
    expect(await session(first)).toMatchObject({ record: { id: firstId } });
    const out = await fetch(`${sdk.server.url}/api/session`, { method: 'DELETE', headers: { authorization: first } });
    expect(out.status).toBe(204);
    expect(await create(second, 'a write between')).toBe(200);
    expect(await session(first)).toBeNull();
    expect(await create(first, 'after sign-out')).toBe(400); // a guest now: the rule fails

    expect(await create(second, 'before the delete')).toBe(200);
    await sdk.admin.collection('users').delete(secondId);
    expect(await create(second, 'after the delete')).toBe(400);
    expect(await session(second)).toBeNull();
  });
});

describe('what time decides, decided at each request while kept', () => {
  const expOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1], 'base64').toString()) as { exp: number }).exp * 1000;

  it('a token stops at its session\'s end, and an earlier copy after a refresh at its own exp', async () => {
    await sdk.admin.collection('users').create({ email: 'third@example.com', name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    const pb = sdk.client();
    await pb.collection('users').authWithPassword('third@example.com', 'session cache 1');
    const earlier = pb.authStore.token;
    const { sessions } = sdk.server.core;
    // the token claims its session's end in whole seconds (the session ends within the second after)
    const ends = expOf(earlier);
    // kept by the first check; each later one answers from memory, with its own clock
    expect(await sessions.resolve(earlier)).not.toBeNull();
    expect(await sessions.resolve(earlier, ends - 1)).not.toBeNull();
    expect(await sessions.resolve(earlier, ends + 1_000)).toBeNull();
    expect(await sessions.resolve(earlier)).not.toBeNull();

    // a refresh a second later claims a later exp; the copy it replaces stays accepted until its own
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await pb.collection('users').authRefresh();
    const current = pb.authStore.token;
    expect(expOf(current)).toBeGreaterThan(ends);
    for (let i = 0; i < 2; i++) {
      expect(await sessions.resolve(earlier)).not.toBeNull();
      expect(await sessions.resolve(earlier, ends - 1)).not.toBeNull();
      expect(await sessions.resolve(earlier, ends)).toBeNull();
      expect(await sessions.resolve(current, ends)).not.toBeNull();
      expect(await sessions.resolve(current, expOf(current) + 1_000)).toBeNull();
    }
  });
});

describe('memory of the sessions kept', () => {
  it('stays bounded in bytes, not only in count, when many tokens of a record with a large field are each used once', async () => {
    // each kept entry holds its own copy of the record as read: 400 tokens of a 200 KB record, each used
    // once (sign-ins, or a refresh a second, keep making new ones), held 80 MB until 10,000 were kept
    await sdk.admin.collections.update('users', { fields: [...(await sdk.admin.collections.getOne('users')).fields, { name: 'profile', type: 'json' }] });
    const user = await sdk.admin.collection('users').create({ email: 'large@example.com', password: 'session cache 1', passwordConfirm: 'session cache 1', profile: { bio: 'b'.repeat(200_000) } });
    const { store, sessions, registry } = sdk.server.core;
    const users = registry.get('users')!;
    const tokens = await store.write(async (tx) => {
      const made: string[] = [];
      for (let i = 0; i < 400; i++) made.push((await sessions.start(tx, users.id, user.id, 'test')).token);
      return made;
    });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (const token of tokens) expect((await sessions.resolve(token))?.record.id).toBe(user.id);
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    expect(retained, `${Math.round(retained / 1e6)} MB retained`).toBeLessThan(48 * 1024 * 1024);
  });
});
