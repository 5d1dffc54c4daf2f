// The official PocketBase JavaScript SDK against Deskbase on a real socket: superuser sign-in,
// collections, record CRUD with filter, sort, expand, fields and getFullList, sign-up, sign-in,
// authRefresh, errors, delete. Tokens, realtime and batch have files of their own (sdk-*.test.ts).
import PocketBase, { ClientResponseError, getTokenPayload } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { engineServerOptions } from '../support/test-store.js';

let server: RunningServer;
let admin: PocketBase;
let usersId: string;
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

/** A fresh SDK client; auto-cancellation off, as for any client making parallel requests from Node. */
function client(): PocketBase {
  const pb = new PocketBase(server.url);
  pb.autoCancellation(false);
  return pb;
}

beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, ...engineServerOptions() });
  // first-time setup is Deskbase's own endpoint (PocketBase uses an installer link instead)
  const setup = await fetch(`${server.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: (await server.setupToken()), ...ADMIN }) });
  expect(setup.status).toBe(200);
  admin = client();
  usersId = server.core.registry.get('users')!.id;
});
afterAll(async () => { await server.close(); });

describe('superuser', () => {
  it('signs in with _superusers.authWithPassword and gets a session token the SDK reads', async () => {
    const auth = await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    // a superuser's token claims `type` for the SDK's isSuperuser (tokens: sdk-tokens.test.ts)
    expect(auth.token).toMatch(/^[A-Za-z0-9_-]{10}\.eyJ0eXBlIjoiYXV0aCJ9\.[A-Za-z0-9_-]{11}$/);
    expect(auth.record.email).toBe(ADMIN.email);
    expect(admin.authStore.token).toBe(auth.token);
    expect(admin.authStore.record?.collectionName).toBe('_superusers');
    expect(admin.authStore.isValid).toBe(true);
    expect(admin.authStore.isSuperuser).toBe(true);
    const collections = await admin.collections.getFullList();
    expect(collections.map((c) => c.name)).toContain('_superusers');
  });

  it('creates and updates collections', async () => {
    const tags = await admin.collections.create({ name: 'tags', type: 'base', fields: [{ name: 'name', type: 'text', required: true }], listRule: '', viewRule: '' });
    const posts = await admin.collections.create({
      name: 'posts',
      type: 'base',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'views', type: 'number' },
        { name: 'author', type: 'relation', collectionId: usersId, maxSelect: 1 },
        { name: 'tags', type: 'relation', collectionId: tags.id, maxSelect: 5 },
        { name: 'created', type: 'autodate', onCreate: true },
      ],
      listRule: '',
      viewRule: '',
      createRule: '@request.auth.id != "" && author = @request.auth.id',
      updateRule: 'author = @request.auth.id',
      deleteRule: 'author = @request.auth.id',
    });
    expect(posts.id).toMatch(/^[a-z0-9]{15}$/);
    const updated = await admin.collections.update('posts', { fields: [...posts.fields, { name: 'body', type: 'editor' }] });
    expect(updated.fields.map((f: { name: string }) => f.name)).toContain('body');
    expect((await admin.collections.getOne('posts')).fields.map((f: { name: string }) => f.name)).toContain('body');
  });

  it('reports validation errors as ClientResponseError with the field codes', async () => {
    const err = await admin.collections.create({ name: 'tags' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientResponseError);
    const e = err as ClientResponseError;
    expect(e.status).toBe(400);
    expect(e.response.data.name.code).toBe('validation_not_unique');
  });
});

describe('users and records', () => {
  let ann: PocketBase;
  let annId: string;
  const tagIds: string[] = [];
  beforeAll(() => {
    ann = client();
  });

  it('signs a user up, signs in and refreshes', async () => {
    for (const name of ['js', 'db', 'ui']) tagIds.push((await admin.collection('tags').create({ name })).id);
    const created = await ann.collection('users').create({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123', name: 'Ann' });
    annId = created.id;
    expect(created.password).toBeUndefined();
    const auth = await ann.collection('users').authWithPassword('ann@example.com', 'password123');
    expect(auth.record.id).toBe(annId);
    const refreshed = await ann.collection('users').authRefresh();
    // the session's current token: it claims the extended expiry, so it is a new spelling whenever a
    // second passed since sign-in (sdk-tokens.test.ts pins both cases); the first stays signed in
    expect(getTokenPayload(refreshed.token).exp).toBeGreaterThanOrEqual(getTokenPayload(auth.token).exp);
    expect(refreshed.record.name).toBe('Ann');
    expect(ann.authStore.token).toBe(refreshed.token);
    expect(ann.authStore.isValid).toBe(true);
    const sessionOf = async (token: string) => (await (await fetch(`${server.url}/api/session`, { headers: { authorization: token } })).json()).id;
    expect(await sessionOf(auth.token)).toBe(await sessionOf(refreshed.token));
    const methods = await ann.collection('users').listAuthMethods();
    expect(methods.password.enabled).toBe(true);
  });

  it('creates, lists with filter, sort, expand and fields, and reads the full list', async () => {
    for (let i = 0; i < 7; i++) {
      await ann.collection('posts').create({ title: `post ${i}`, views: i * 10, author: annId, tags: [tagIds[i % 3]] });
    }
    const page = await ann.collection('posts').getList(1, 3, {
      filter: ann.filter('views >= {:min} && title ~ {:q}', { min: 20, q: 'post' }),
      sort: '-views',
      expand: 'author,tags',
      fields: 'id,title,views,expand.tags.name',
    });
    expect(page.totalItems).toBe(5);
    expect(page.totalPages).toBe(2);
    expect(page.items.map((p) => p.title)).toEqual(['post 6', 'post 5', 'post 4']);
    expect(page.items[0].expand?.tags[0].name).toBe('js');
    expect(page.items[0].author).toBeUndefined(); // picked away by fields
    // the author's own view of the record includes her e-mail through expand
    const one = await ann.collection('posts').getOne(page.items[0].id, { expand: 'author' });
    expect(one.expand?.author.email).toBe('ann@example.com');
    const all = await ann.collection('posts').getFullList({ sort: 'views', batch: 2 });
    expect(all.map((p) => p.views)).toEqual([0, 10, 20, 30, 40, 50, 60]);
    const first = await ann.collection('posts').getFirstListItem(ann.filter('title = {:t}', { t: 'post 3' }));
    expect(first.views).toBe(30);
  });

  it('filters dates the way the SDK formats them', async () => {
    const future = new Date(Date.now() + 60 * 60 * 1000);
    const past = new Date(Date.now() - 60 * 60 * 1000);
    const after = await ann.collection('posts').getList(1, 1, { filter: ann.filter('created >= {:d}', { d: future }) });
    expect(after.totalItems).toBe(0);
    const since = await ann.collection('posts').getList(1, 1, { filter: ann.filter('created >= {:d}', { d: past }) });
    expect(since.totalItems).toBe(7);
  });

  it('updates with modifiers, is refused by the rules, and deletes', async () => {
    const post = await ann.collection('posts').getFirstListItem('title = "post 1"');
    const updated = await ann.collection('posts').update(post.id, { 'views+': 5, 'tags+': [tagIds[2]] });
    expect(updated.views).toBe(15);
    expect(updated.tags).toEqual([tagIds[1], tagIds[2]]);

    const guest = client();
    const denied = await guest.collection('posts').update(post.id, { title: 'x' }).catch((e: unknown) => e as ClientResponseError);
    expect(denied.status).toBe(404);
    const refused = await guest.collection('posts').create({ title: 'x', author: annId }).catch((e: unknown) => e as ClientResponseError);
    expect(refused.status).toBe(400);

    await ann.collection('posts').delete(post.id);
    const gone = await ann.collection('posts').getOne(post.id).catch((e: unknown) => e as ClientResponseError);
    expect(gone.status).toBe(404);
    expect(gone.response).toEqual({ status: 404, message: 'Not found.', data: {} });
  });

  it('signs out: a cleared auth store sends no token; a deleted user loses the session', async () => {
    const bob = client();
    const created = await bob.collection('users').create({ email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123' });
    await bob.collection('users').authWithPassword('bob@example.com', 'password123');
    const token = bob.authStore.token;
    await bob.collection('users').delete(created.id);
    expect(bob.authStore.token).toBe(''); // the SDK clears its store when the signed-in record is deleted
    const session = await fetch(`${server.url}/api/session`, { headers: { authorization: token } });
    expect(await session.json()).toBeNull();
  });
});

describe('tokens in the SDK', () => {
  it('autoRefreshThreshold re-authenticates only near the expiry the token claims, as with PocketBase', async () => {
    const pb = client();
    // a superuser's token claims no expiry (it claims `type`), so this is about other collections
    await pb.collection('users').authWithPassword('ann@example.com', 'password123', { autoRefreshThreshold: 30 * 60 });
    const before = await pb.send('/api/sessions', {});
    await pb.collection('posts').getList(1, 1);
    await pb.collection('posts').getList(1, 1);
    const after = await pb.send('/api/sessions', {});
    // a 7-day token is far from its 30-minute threshold: no request signed in again
    expect(after.items.length).toBe(before.items.length);
  });

  it('pb.authStore.isValid is true for a signed-in user', async () => {
    const pb = client();
    await pb.collection('users').authWithPassword('ann@example.com', 'password123');
    expect(pb.authStore.isValid).toBe(true);
    const session = await pb.send('/api/session', {});
    expect(session.record.email).toBe('ann@example.com');
  });
});
