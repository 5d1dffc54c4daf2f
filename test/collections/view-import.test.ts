// A real PocketBase app's schema with view collections, imported through the official SDK over a socket
// (issue 20, section 2): wanderer's snapshot (23 collections, 5 views that aggregate and filter other
// collections, rules of base collections and views reading a view through @collection). Its views are
// imported as views, their fields inferred as PocketBase inferred them (the snapshot lists them), and
// they answer its users as the app expects. Skipped when the samples folder is absent.
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.js';
import { failure, startSdkServer } from '../support/sdk-server.js';
import { sampleSchema } from '../transfer/pocketbase-fixtures.js';

const snapshot = sampleSchema('wanderer');
const views = (snapshot ?? []).filter((c) => c.type === 'view') as { name: string; viewQuery: string; fields: { name: string; type: string }[] }[];

let server: RunningServer;
let admin: PocketBase;
let client: () => PocketBase;
const ids: Record<string, string> = {};

async function signIn(email: string): Promise<PocketBase> {
  const pb = client();
  await pb.collection('users').authWithPassword(email, 'password123');
  return pb;
}

describe.skipIf(snapshot === null)('wanderer\'s schema with its views', () => {
  beforeAll(async () => {
    ({ server, admin, client } = await startSdkServer());
    await admin.collections.import(snapshot as never, false);
    for (const name of ['ann', 'bob', 'carl']) {
      ids[name] = (await admin.collection('users').create({ email: `${name}@example.com`, username: name, password: 'password123', passwordConfirm: 'password123' })).id;
    }
    await admin.collection('settings').create({ user: ids.carl, privacy: { account: 'private' } });
  });
  afterAll(async () => { await server?.close(); });

  it('imports every view as a view, with the fields PocketBase inferred', async () => {
    expect(views.length).toBe(5);
    for (const view of views) {
      const c = await admin.collections.getOne(view.name);
      expect(c.type, view.name).toBe('view');
      expect(c.viewQuery).toBe(view.viewQuery);
      expect(c.fields.map((f: { name: string; type: string }) => [f.name, f.type]), view.name).toEqual(view.fields.map((f) => [f.name, f.type]));
    }
    // the admin export carries them back
    const exported = await admin.send('/api/collections/meta/export', {});
    expect(exported.filter((c: { type: string }) => c.type === 'view').map((c: { name: string; viewQuery: string }) => [c.name, c.viewQuery]))
      .toEqual(expect.arrayContaining(views.map((v) => [v.name, v.viewQuery])));
  });

  it('answers the app\'s users under the views\' rules, and base rules reading a view', async () => {
    const ann = await signIn('ann@example.com');
    const carl = await signIn('carl@example.com');
    // follows' createRule reads users_anonymous (a view): bob is public, carl is private
    await ann.collection('follows').create({ follower: ids.ann, followee: ids.bob });
    expect((await failure(ann.collection('follows').create({ follower: ids.ann, followee: ids.carl }))).status).toBe(400);
    await admin.collection('follows').create({ follower: ids.carl, followee: ids.bob });
    // follow_counts aggregates follows; its rules read users_anonymous
    expect(await ann.collection('follow_counts').getOne(ids.bob)).toMatchObject({ followers: 2, following: 0 });
    expect((await failure(ann.collection('follow_counts').getOne(ids.carl))).status).toBe(404);
    expect(await carl.collection('follow_counts').getOne(ids.carl)).toMatchObject({ followers: 0, following: 1 });
    // users_anonymous: public to guests, with no email or password hash
    const anonymous = await client().collection('users_anonymous').getFullList({ sort: 'username' });
    expect(anonymous.map((u) => [u.username, u.private])).toEqual([['ann', false], ['bob', false], ['carl', true]]);
    expect(Object.keys(anonymous[0]).sort()).toEqual(['avatar', 'bio', 'collectionId', 'collectionName', 'created', 'id', 'private', 'username']);
    // trails_filter: each user sees their own row only
    expect(await ann.collection('trails_filter').getOne(ids.ann)).toMatchObject({ id: ids.ann, max_distance: 0 });
    expect((await failure(ann.collection('trails_filter').getOne(ids.bob))).status).toBe(404);
    // activities (a UNION under ORDER BY) lists, empty so far
    expect((await admin.collection('activities').getList(1, 5)).totalItems).toBe(0);
  });
});
