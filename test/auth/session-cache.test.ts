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
import { ReadCache } from '../../server/http/read-cache.js';
import { EXPIRED_SWEEP_BATCH } from '../../server/core/session-store.js';

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
    // past the bound the oldest kept went, not all: the last ~160 (32 MiB of 200 KB copies) are still
    // kept (all were dropped at once each time the bound was reached: token 300 was read again)
    const before2 = { ...sessions.counts };
    for (const token of [tokens[399], tokens[300], tokens[260]]) expect((await sessions.resolve(token))?.record.id).toBe(user.id);
    expect(sessions.counts.kept - before2.kept).toBe(3);
    expect((await sessions.resolve(tokens[0]))?.record.id).toBe(user.id);
    expect(sessions.counts.read - before2.read).toBe(1);
  });
});

describe("sessions kept across other sessions' writes (store.rowsVersion of _sessions)", () => {
  const signIn = async (email: string) => {
    const pb = sdk.client();
    await pb.collection('users').authWithPassword(email, 'session cache 1');
    return pb;
  };
  const counted = () => ({ ...sdk.server.core.sessions.counts });

  it("a sign-in's new session leaves every kept one kept; a refresh or a sign-out has each read its own row once, and ends the one it ends at once", async () => {
    for (const email of ['kept-a@example.com', 'kept-b@example.com']) {
      await sdk.admin.collection('users').create({ email, name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    }
    const a = (await signIn('kept-a@example.com')).authStore.token;
    const b = await signIn('kept-b@example.com');
    const { sessions } = sdk.server.core;
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(await sessions.resolve(b.authStore.token)).not.toBeNull();
    let before = counted();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(counted()).toEqual({ ...before, kept: before.kept + 1 });

    // sign-ins (new rows of _sessions), of another user and of the same one: nothing kept is read again
    await signIn('kept-b@example.com');
    await signIn('kept-a@example.com');
    before = counted();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(await sessions.resolve(b.authStore.token)).not.toBeNull();
    expect(counted()).toEqual({ ...before, kept: before.kept + 2 });

    // a refresh changes b's row: a checks its own row once (one read, not session and record), b reads again
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // a later exp second: a new token
    await b.collection('users').authRefresh();
    before = counted();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(await sessions.resolve(b.authStore.token)).not.toBeNull();
    expect(counted()).toEqual({ kept: before.kept + 2, rechecked: before.rechecked + 1, read: before.read + 1 });

    // b signs out: refused at its very next request; a checks its row once and stays kept
    expect((await fetch(`${sdk.server.url}/api/session`, { method: 'DELETE', headers: { authorization: b.authStore.token } })).status).toBe(204);
    expect(await session(b.authStore.token)).toBeNull();
    before = counted();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(await sessions.resolve(a)).not.toBeNull();
    expect(counted()).toEqual({ ...before, kept: before.kept + 2, rechecked: before.rechecked + 1 });
    // a session revoked by SQL no method of the session store ran (a hook's, say) is refused at once too
    const aId = (await sessions.resolve(a))!.sessionId!;
    await sdk.server.core.store.write((tx) => tx.run('DELETE FROM "_sessions" WHERE "id" = ?', [aId]));
    expect(await sessions.resolve(a)).toBeNull();
    expect(await session(a)).toBeNull();
  });

  it('expired sessions are deleted by a sign-in through an index, only when there are some, and at most once a minute', async () => {
    const { store, sessions, registry } = sdk.server.core;
    await sdk.admin.collection('users').create({ email: 'sweep@example.com', name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    const kept = (await signIn('sweep@example.com')).authStore.token;
    expect(await sessions.resolve(kept)).not.toBeNull();
    const user = registry.get('users')!;
    const userId = (await sessions.resolve(kept))!.record.id as string;
    const plan = await store.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT 1 FROM "_sessions" WHERE "expires" < ? LIMIT 1', ['2000-01-01']);
    expect(plan.map((row) => row.detail).join(' ')).toContain('_sessions_expires');
    const count = async () => Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "_sessions" WHERE "expires" < ?', [new Date(Date.now() + 3_600_000).toISOString()]))?.n);
    // a session that ended an hour ago; a sign-in a minute past the last sweep deletes it
    const later = Date.now() + 2 * 60_000;
    await store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
      ['expiredsession1', 'e'.repeat(64), user.id, userId, new Date(later - 8 * 86_400_000).toISOString(), new Date(Date.now() - 3_600_000).toISOString(), 'test'],
    ));
    expect(await count()).toBe(1);
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', later));
    expect(await count()).toBe(0);
    // the kept session read its row once and stayed kept
    const before = counted();
    expect(await sessions.resolve(kept)).not.toBeNull();
    expect(counted()).toEqual({ ...before, kept: before.kept + 1, rechecked: before.rechecked + 1 });
    // another expired one within the minute stays until the next sweep (a resolve refuses it anyway)
    await store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
      ['expiredsession2', 'f'.repeat(64), user.id, userId, new Date(later - 8 * 86_400_000).toISOString(), new Date(Date.now() - 3_600_000).toISOString(), 'test'],
    ));
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', later + 1_000));
    expect(await count()).toBe(1);
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', later + 61_000));
    expect(await count()).toBe(0);
  });

  it('a backlog of expired sessions goes a bounded batch per sign-in, the next sign-in going on at once while a batch comes back full', async () => {
    const { store, sessions, registry } = sdk.server.core;
    await sdk.admin.collection('users').create({ email: 'backlog@example.com', name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    const pb = await signIn('backlog@example.com');
    const user = registry.get('users')!;
    const userId = pb.authStore.record!.id;
    const at = Date.now() + 10 * 60_000; // past every earlier test's sweep
    const expired = () => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "_sessions" WHERE "expires" < ?', [new Date(at).toISOString()]).then((r) => Number(r?.n));
    const backlog = 2 * EXPIRED_SWEEP_BATCH + 500;
    await store.write(async (tx) => {
      for (let i = 0; i < backlog; i++) {
        await tx.run(
          'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
          [`backlog${String(i).padStart(8, '0')}`, String(i).padStart(64, '0'), user.id, userId, new Date(at - 8 * 86_400_000).toISOString(), new Date(at - 3_600_000).toISOString(), 'test'],
        );
      }
    });
    const before = await expired();
    expect(before).toBeGreaterThanOrEqual(backlog);
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', at));
    expect(await expired()).toBe(before - EXPIRED_SWEEP_BATCH);
    // a full batch: the next sign-in goes on without waiting for the minute
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', at + 1_000));
    expect(await expired()).toBe(before - 2 * EXPIRED_SWEEP_BATCH);
    await store.write((tx) => sessions.start(tx, user.id, userId, 'test', at + 2_000));
    expect(await expired()).toBe(0);
  });
});

describe("answers kept across other sessions' writes (http/read-cache.ts, store.versionExcept)", () => {
  it('a sign-in (a new session row alone) keeps every kept answer; a write to a table answers read drops them', async () => {
    const cache = new ReadCache(sdk.server.core);
    const headers = new Headers({ host: 'localhost' });
    const target = '/api/collections/notes/records';
    const v = cache.now()!;
    const key = cache.keyOf(target, {}, null, headers)!;
    cache.set(key, v, Buffer.from('{"kept":"across sign-ins"}'));
    await sdk.admin.collection('users').create({ email: 'answers@example.com', name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    expect(cache.get(key)).toBeUndefined(); // a user created: answers may read users
    const again = cache.now()!;
    cache.set(key, again, Buffer.from('{"kept":"across sign-ins"}'));
    const pb = sdk.client();
    await pb.collection('users').authWithPassword('answers@example.com', 'session cache 1');
    await sdk.client().collection('users').authWithPassword('answers@example.com', 'session cache 1');
    expect(cache.get(key)?.toString()).toBe('{"kept":"across sign-ins"}');
    expect(cache.now()).toBe(again);
    // a note created: the answer goes
    expect(await create(pb.authStore.token, 'a write answers read')).toBe(200);
    expect(cache.get(key)).toBeUndefined();
  });
});

// Last in the file: a statement of a shape the table versions do not take apart stops their tracking
// for the store's life (store/table-versions.ts), which the tests above count on.
describe('sessions ended by SQL of unusual shape (a hook\'s)', () => {
  it('an upsert whose DO and UPDATE a comment parts, and a write to `main . "_sessions"`, end kept sessions at once', async () => {
    const { sessions, store } = sdk.server.core;
    for (const email of ['shape-a@example.com', 'shape-b@example.com']) {
      await sdk.admin.collection('users').create({ email, name: 'allowed', password: 'session cache 1', passwordConfirm: 'session cache 1' });
    }
    const signIn = async (email: string) => {
      const pb = sdk.client();
      await pb.collection('users').authWithPassword(email, 'session cache 1');
      return pb.authStore.token;
    };
    const a = await signIn('shape-a@example.com');
    const b = await signIn('shape-b@example.com');
    const aId = (await sessions.resolve(a))!.sessionId!;
    const bId = (await sessions.resolve(b))!.sessionId!;
    expect(await sessions.resolve(a)).not.toBeNull(); // kept
    expect(await sessions.resolve(b)).not.toBeNull();

    // the session's row is updated (it ended an hour ago) by an INSERT: an upsert
    const row = (await store.get<Record<string, string>>('SELECT * FROM "_sessions" WHERE "id" = ?', [aId]))!;
    await store.write((tx) => tx.run(
      'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?) ON CONFLICT ("id") DO/* ended */UPDATE SET "expires" = excluded."expires"',
      [aId, row.tokenHash, row.collectionId, row.recordId, row.created, new Date(Date.now() - 3_600_000).toISOString(), 'test'],
    ));
    expect(await sessions.resolve(a)).toBeNull();
    expect(await session(a)).toBeNull();
    expect(await sessions.resolve(b)).not.toBeNull(); // b read its row again: kept as of this write

    // SQLite reads `main . "_sessions"` as main."_sessions"
    await store.write((tx) => tx.run('DELETE FROM main . "_sessions" WHERE "id" = ?', [bId]));
    expect(await store.get('SELECT 1 AS one FROM "_sessions" WHERE "id" = ?', [bId])).toBeUndefined();
    expect(await sessions.resolve(b)).toBeNull();
    expect(await session(b)).toBeNull();
  });
});
