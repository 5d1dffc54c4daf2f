// Answers of record reads kept between requests (server/http/read-cache.ts): kept under everything
// they depend on and only while nothing they depend on changed. Over a real socket with the official
// SDK: writes, rule changes and ended sessions show at once; callers, headers and the clock each get
// their own answers. And on a real core: what the cache keeps, when it keeps nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type PocketBase from 'pocketbase';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { harness } from '../support/harness.js';
import { ReadCache } from '../../server/http/read-cache.js';

const sdk = sdkSuite();
const PASSWORD = 'cache password 1';
let alice: PocketBase;
let bob: PocketBase;
let noteId = '';

async function signedIn(email: string): Promise<PocketBase> {
  await sdk.admin.collection('users').create({ email, password: PASSWORD, passwordConfirm: PASSWORD });
  const pb = sdk.client();
  await pb.collection('users').authWithPassword(email, PASSWORD);
  return pb;
}

const status = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${sdk.server.url}${path}`, { headers })).status;

/** The status of a GET sending `headers` as they are listed: each its own line, names in their case. */
function rawStatus(path: string, headers: [string, string][]): Promise<number> {
  const { hostname, port } = new URL(sdk.server.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: [['host', `${hostname}:${port}`], ...headers].flat(), agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  alice = await signedIn('alice@example.com');
  bob = await signedIn('bob@example.com');
  const usersId = (await sdk.admin.collections.getOne('users')).id;
  await sdk.admin.collections.create({
    name: 'cnotes', type: 'base', listRule: 'owner = @request.auth.id', viewRule: 'owner = @request.auth.id',
    fields: [{ name: 'title', type: 'text' }, { name: 'owner', type: 'relation', collectionId: usersId, maxSelect: 1 }],
  });
  noteId = (await sdk.admin.collection('cnotes').create({ title: 'first', owner: alice.authStore.record!.id })).id;
});

describe('kept answers over a socket', () => {
  it('a write shows at once: an update, a create, a delete', async () => {
    expect((await alice.collection('cnotes').getOne(noteId)).title).toBe('first');
    expect((await alice.collection('cnotes').getOne(noteId)).title).toBe('first');
    await sdk.admin.collection('cnotes').update(noteId, { title: 'second' });
    expect((await alice.collection('cnotes').getOne(noteId)).title).toBe('second');
    expect((await alice.collection('cnotes').getList(1, 10)).totalItems).toBe(1);
    const extra = await sdk.admin.collection('cnotes').create({ title: 'extra', owner: alice.authStore.record!.id });
    expect((await alice.collection('cnotes').getList(1, 10)).totalItems).toBe(2);
    await sdk.admin.collection('cnotes').delete(extra.id);
    expect((await alice.collection('cnotes').getList(1, 10)).totalItems).toBe(1);
  });

  it('each caller gets its own answer: the owner, another user, a guest', async () => {
    expect((await alice.collection('cnotes').getOne(noteId)).id).toBe(noteId);
    expect((await failure(bob.collection('cnotes').getOne(noteId))).status).toBe(404);
    expect((await failure(sdk.client().collection('cnotes').getOne(noteId))).status).toBe(404);
    expect((await bob.collection('cnotes').getList(1, 10)).totalItems).toBe(0);
    expect((await alice.collection('cnotes').getList(1, 10)).totalItems).toBe(1);
  });

  it('an ended session is a guest at once', async () => {
    const carol = await signedIn('carol@example.com');
    const mine = await sdk.admin.collection('cnotes').create({ title: 'carol', owner: carol.authStore.record!.id });
    const path = `/api/collections/cnotes/records/${mine.id}`;
    const token = carol.authStore.token;
    expect(await status(path, { authorization: token })).toBe(200);
    expect(await status(path, { authorization: token })).toBe(200);
    // signing out ends the session the token names (DELETE /api/session)
    expect((await fetch(`${sdk.server.url}/api/session`, { method: 'DELETE', headers: { authorization: token } })).status).toBe(204);
    expect(await status(path, { authorization: token })).toBe(404);
  });

  it('a rule change shows at once', async () => {
    const path = `/api/collections/cnotes/records/${noteId}`;
    expect(await status(path, { authorization: alice.authStore.token })).toBe(200);
    await sdk.admin.collections.update('cnotes', { viewRule: null });
    try {
      expect(await status(path, { authorization: alice.authStore.token })).toBe(403);
    } finally {
      await sdk.admin.collections.update('cnotes', { viewRule: 'owner = @request.auth.id' });
    }
    expect(await status(path, { authorization: alice.authStore.token })).toBe(200);
  });

  it("the requests' logs, written in their batch, leave the data's version (and so every kept answer) as it was", async () => {
    const version = sdk.server.core.store.version;
    const written = sdk.server.logs.logger.written;
    for (let i = 0; i < 5; i++) expect((await alice.collection('cnotes').getOne(noteId)).id).toBe(noteId);
    await sdk.server.logs.logger.flush();
    expect(sdk.server.logs.logger.written).toBeGreaterThanOrEqual(written + 5);
    expect(sdk.server.core.store.version).toBe(version);
  });

  it('headers a rule reads make answers of their own', async () => {
    await sdk.admin.collections.create({ name: 'teams', type: 'base', listRule: "@request.headers.x_team = 'red'", viewRule: "@request.headers.x_team = 'red'", fields: [{ name: 'title', type: 'text' }] });
    const red = await sdk.admin.collection('teams').create({ title: 'red team' });
    const path = `/api/collections/teams/records/${red.id}`;
    expect(await status(path, { 'x-team': 'red' })).toBe(200);
    expect(await status(path, { 'x-team': 'red' })).toBe(200);
    expect(await status(path, { 'x-team': 'blue' })).toBe(404);
    expect(await status(path)).toBe(404);
  });

  it('headers key answers as rules read them: names in any case share, a repeated header is its joined value', async () => {
    await sdk.admin.collections.create({ name: 'crews', type: 'base', viewRule: "@request.headers.x_crew = 'red'", fields: [{ name: 'title', type: 'text' }] });
    const red = await sdk.admin.collection('crews').create({ title: 'red crew' });
    const path = `/api/collections/crews/records/${red.id}`;
    // kept (asked twice), then asked with the header repeated: the rule reads 'red, blue' and refuses
    expect(await rawStatus(path, [['x-crew', 'red']])).toBe(200);
    expect(await rawStatus(path, [['X-Crew', 'red']])).toBe(200);
    expect(await rawStatus(path, [['x-crew', 'red']])).toBe(200);
    expect(await rawStatus(path, [['x-crew', 'red'], ['X-CREW', 'blue']])).toBe(404);
    expect(await rawStatus(path, [['x-crew', 'blue'], ['x-crew', 'red']])).toBe(404);
    expect(await rawStatus(path, [['x-crew', 'red'], ['x-other', '1'], ['x-crew', 'red']])).toBe(404);
    // one answer for the same headers in another order, and none for another caller's
    expect(await rawStatus(path, [['x-other', '1'], ['x-crew', 'red']])).toBe(200);
    expect(await rawStatus(path, [['x-crew', 'red'], ['x-other', '1']])).toBe(200);
    expect(await rawStatus(path, [['x-other', '1'], ['x-crew', 'blue']])).toBe(404);
  });

  it('answers that depend on the clock are not kept: a rule or a filter naming @now', async () => {
    await sdk.admin.collections.create({
      name: 'offers', type: 'base', listRule: '', viewRule: 'ends > @now',
      fields: [{ name: 'title', type: 'text' }, { name: 'ends', type: 'date' }],
    });
    const ends = new Date(Date.now() + 1500).toISOString().replace('T', ' ');
    const offer = await sdk.admin.collection('offers').create({ title: 'soon over', ends });
    const path = `/api/collections/offers/records/${offer.id}`;
    const listed = `/api/collections/offers/records?filter=${encodeURIComponent('ends > @now')}`;
    const count = async () => ((await (await fetch(`${sdk.server.url}${listed}`)).json()) as { totalItems: number }).totalItems;
    expect(await status(path)).toBe(200);
    expect(await status(path)).toBe(200);
    expect(await count()).toBe(1);
    expect(await count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect(await status(path)).toBe(404);
    expect(await count()).toBe(0);
  });
});

describe('sessions resolved again without reading them (core/session-store.ts)', () => {
  it('a known token is still refused once its time is up, and once its session ends', async () => {
    const dave = await signedIn('dave@example.com');
    const token = dave.authStore.token;
    const sessions = sdk.server.core.sessions;
    expect((await sessions.resolve(token))?.record.id).toBe(dave.authStore.record!.id);
    expect((await sessions.resolve(token))?.record.id).toBe(dave.authStore.record!.id); // known now (desktop)
    expect(await sessions.resolve(token, Date.now() + 8 * 24 * 3600 * 1000)).toBeNull(); // past its 7 days
    expect(await sessions.resolve(token)).not.toBeNull();
    // an admin changes the record: the next resolve reads it again, not what it knew
    await sdk.admin.collection('users').update(dave.authStore.record!.id, { name: 'Dave Again' });
    expect((await sessions.resolve(token))?.record.name).toBe('Dave Again');
    expect((await fetch(`${sdk.server.url}/api/session`, { method: 'DELETE', headers: { authorization: token } })).status).toBe(204);
    expect(await sessions.resolve(token)).toBeNull();
  });
});

describe('the cache on a real core', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => { h = await harness(); });

  it('keeps an answer at the version it was made, and drops it when a write ends', async () => {
    const cache = new ReadCache(h.core);
    const headers = new Headers({ host: 'localhost', 'x-any': '1' });
    const v = cache.now();
    if (v === null) return expect(h.core.store.dialect).toBe('postgres'); // the team server keeps nothing
    const key = cache.keyOf('/api/collections/users/records', {}, null, headers)!;
    expect(key).not.toBeNull();
    cache.set(key, v, Buffer.from('{"kept":1}'));
    expect(cache.get(key)?.toString()).toBe('{"kept":1}');
    await h.core.store.write(async (tx) => { await tx.run('SELECT 1'); });
    expect(cache.get(key)).toBeUndefined();
    cache.set(key, v, Buffer.from('{"stale":1}')); // made before the write: not kept
    expect(cache.get(key)).toBeUndefined();
  });

  it('keeps only answers asked for before: the first time a key is only noted', async () => {
    const cache = new ReadCache(h.core);
    const v = cache.now();
    if (v === null) return;
    const once = (value: string) => new Headers({ host: 'localhost', 'x-once': value });
    const target = '/api/collections/users/records';
    const key = cache.keyOf(target, {}, null, once('a'))!;
    expect(cache.asked(target, {}, null, once('a'))).toBeNull(); // noted
    expect(cache.asked(target, {}, null, once('b'))).toBeNull();
    expect(cache.asked(target, {}, null, once('a'))).toBe(key); // asked before: keyOf's key
    expect(cache.asked(target, {}, null, once('a'))).toBe(key);
    cache.set(key, v, Buffer.from('{"kept":2}'));
    expect(cache.get(key)?.toString()).toBe('{"kept":2}');
    const other = cache.asked(target, {}, null, once('b'))!;
    expect(other).toBe(cache.keyOf(target, {}, null, once('b')));
    cache.set(other, v + 1, Buffer.from('{"later":1}')); // made at another version: not kept
    expect(cache.get(other)).toBeUndefined();
    // what may not be kept is not even noted
    expect(cache.asked(target, { filter: 'created > @now' }, null, once('c'))).toBeNull();
    expect(cache.asked(target, { filter: 'created > @now' }, null, once('c'))).toBeNull();
  });

  it('a kept answer is found after other keys took its slot in the table of keys asked once', async () => {
    const cache = new ReadCache(h.core);
    const v = cache.now();
    if (v === null) return;
    const headers = new Headers({ host: 'localhost' });
    const kept = '/api/collections/users/records/kept';
    cache.asked(kept, {}, null, headers);
    const key = cache.asked(kept, {}, null, headers)!;
    cache.set(key, v, Buffer.from('{"kept":3}'));
    // 200,000 keys asked once each: the 16,384 slots are all taken again (the kept key's is left with
    // a chance of about 1 in 200,000)
    for (let i = 0; i < 200_000; i++) cache.asked(`/api/collections/users/records/x${i}`, {}, null, headers);
    expect(cache.asked(kept, {}, null, headers)).toBe(key);
    expect(cache.get(key)?.toString()).toBe('{"kept":3}');
  });

  it('remembers every one of 1,000 keys asked in turn, those whose hashes share a slot too', async () => {
    const cache = new ReadCache(h.core);
    if (cache.now() === null) return;
    const headers = new Headers({ host: 'localhost' });
    const targets = Array.from({ length: 1000 }, (_, i) => `/api/collections/users/records/id${String(i).padStart(12, '0')}`);
    for (const target of targets) expect(cache.asked(target, {}, null, headers)).toBeNull();
    // the second round: each asked before (one hash per slot forgot about 60 of them, asked alternately)
    const forgotten = targets.filter((target) => cache.asked(target, {}, null, headers) === null);
    expect(forgotten).toEqual([]);
  });

  it('keeps nothing for a query naming the clock or chance, and tells callers and headers apart', async () => {
    const cache = new ReadCache(h.core);
    if (cache.now() === null) return;
    const headers = new Headers({ host: 'localhost' });
    expect(cache.keyOf('/x', { filter: 'created > @now' }, null, headers)).toBeNull();
    expect(cache.keyOf('/x', { sort: '@random' }, null, headers)).toBeNull();
    expect(cache.keyOf('/x', { filter: "strftime('%Y', created) = '2025'" }, null, headers)).toBeNull();
    expect(cache.keyOf('/x', { filter: '@request.auth.id != ""' }, null, headers)).not.toBeNull();
    const guest = cache.keyOf('/x', {}, null, headers);
    expect(cache.keyOf('/x', {}, null, new Headers({ host: 'localhost', 'x-team': 'red' }))).not.toBe(guest);
    expect(cache.keyOf('/x', {}, null, new Headers({ host: 'localhost', authorization: 'secret', cookie: 'a=b' }))).toBe(guest);
  });
});
