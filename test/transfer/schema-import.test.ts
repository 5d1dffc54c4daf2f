// PUT /api/collections/import and the schema export: PocketBase's collections JSON as is (foreign ids
// mapped, relations rewritten, CREATE INDEX strings parsed, PocketBase-only parts reported), all or
// nothing, and Deskbase → file → Deskbase unchanged. DELETE /api/collections/{c}/truncate too.
import { describe, expect, it } from 'vitest';
import { eachSuperuser, harness, type Harness } from '../support/harness.js';
import { pbMfas, pbPosts, pbUsers, pbView, sampleSchema } from './pocketbase-fixtures.js';

type Note = { collection: string; item: string; reason: string };

describe('schema import and export', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const importSchema = (collections: unknown[], extra: Record<string, unknown> = {}) =>
    h.req('PUT', '/api/collections/import', { token: su, body: { collections, ...extra } });
  const schema = async () => (await h.req('GET', '/api/collections?perPage=500', { token: su })).body.items as Record<string, any>[];

  it('is for superusers only', async () => {
    expect((await h.req('PUT', '/api/collections/import', { body: { collections: [pbPosts] } })).status).toBe(401);
    expect((await h.req('GET', '/api/collections/meta/export')).status).toBe(401);
    expect((await h.req('DELETE', '/api/collections/users/truncate')).status).toBe(401);
  });

  it('takes PocketBase collections: ids mapped, relations rewritten, indexes parsed, the rest reported', async () => {
    // a field of a type Deskbase lacks is left out, and a rule reading it is set to null and reported
    const drafts = {
      ...pbPosts, id: 'pbc_2000000001', name: 'drafts', indexes: [],
      fields: [...pbPosts.fields.filter((f) => f.name !== 'related'), { hidden: false, id: 'vector1', name: 'embedding', presentable: false, required: false, system: false, type: 'vector' }],
      deleteRule: 'author = @request.auth.id && embedding != ""',
    };
    const r = await importSchema([pbPosts, pbUsers, pbView, pbMfas, drafts]);
    expect(r.status, r.text).toBe(200);
    const all = await schema();
    const users = all.find((c) => c.name === 'users')!;
    const posts = all.find((c) => c.name === 'posts')!;
    expect(posts.id).toMatch(/^[a-z0-9]{15}$/);
    expect(all.map((c) => c.name).sort()).toEqual(['_externalAuths', '_superusers', 'drafts', 'post_counts', 'posts', 'users']);
    // PocketBase's users matched Deskbase's users by name; the relation follows both mappings
    const author = posts.fields.find((f: any) => f.name === 'author');
    expect(author.collectionId).toBe(users.id);
    expect(posts.fields.find((f: any) => f.name === 'related').collectionId).toBe(posts.id);
    expect(posts.fields.find((f: any) => f.name === 'status')).toMatchObject({ id: 'select2063623452', values: ['draft', 'published'] });
    expect(posts.indexes).toEqual([{ name: 'idx_posts_status', fields: ['select2063623452', 'number2245608546'], unique: false }]);
    expect(users.fields.map((f: any) => f.name)).not.toContain('tokenKey');
    // file fields come over with their options (PocketBase's `thumbs: null` is an empty list)
    expect(posts.fields.find((f: any) => f.name === 'cover')).toMatchObject({ id: 'file3834550803', type: 'file', maxSelect: 1, maxSize: 0, mimeTypes: [], thumbs: [], protected: false });
    expect(users.fields.find((f: any) => f.name === 'avatar')).toMatchObject({ id: 'file376926767', type: 'file', maxSelect: 1, mimeTypes: ['image/jpeg'], thumbs: [] });
    expect(posts.listRule).toBe('');
    expect(posts.deleteRule).toBe('author = @request.auth.id && cover != ""'); // reads the file field, which came over
    const notes = r.body.notes as Note[];
    const about = (c: string, item: string) => notes.find((n) => n.collection === c && n.item === item);
    expect(about('posts', 'field cover')).toBeUndefined();
    expect(about('posts', 'deleteRule')).toBeUndefined();
    expect(about('drafts', 'field embedding')?.reason).toMatch(/type "vector"/);
    expect(all.find((c) => c.name === 'drafts')!.deleteRule).toBeNull();
    expect(about('drafts', 'deleteRule')?.reason).toContain('author = @request.auth.id && embedding != ""');
    expect(about('posts', 'index idx_posts_lower')).toBeDefined();
    expect(about('users', 'OAuth2')?.reason).toContain('google');
    // the view comes over as a view, its fields inferred from its query
    expect(about('post_counts', 'collection')).toBeUndefined();
    expect(all.find((c) => c.name === 'post_counts')).toMatchObject({ type: 'view', viewQuery: pbView.viewQuery, fields: [{ name: 'id', primaryKey: true }, { name: 'n', type: 'json' }] });
    expect(about('_mfas', 'collection')).toBeDefined();
    expect(r.body.changes.find((c: any) => c.name === 'posts')).toMatchObject({ action: 'added' });
    // Deskbase's own users has PocketBase's default fields, the avatar included: the import's avatar
    // (other options) changes that field, and nothing is added or removed; its auth options' settings
    // (templates, OAuth2 mapped fields) are kept, turned off where Deskbase cannot do them
    expect(r.body.changes.find((c: any) => c.name === 'users')).toMatchObject({ action: 'changed', fields: { added: [], changed: ['avatar'], removed: [] }, settings: ['authAlert', 'oauth2', 'otp'] });
    // the imported collections work: a record through the API
    const rec = await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'hi', status: 'draft' } });
    expect(rec.status, rec.text).toBe(200);
  });

  it('file fields keep their options both ways, under the names PocketBase gives them', async () => {
    const docs = {
      id: 'pbc_3000000001', name: 'docs', type: 'base', system: false, indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null,
      fields: [
        pbPosts.fields[0],
        { hidden: false, id: 'file1000000001', maxSelect: 3, maxSize: 1048576, mimeTypes: ['image/png', 'application/pdf'], name: 'scans', presentable: false, protected: true, required: true, system: false, thumbs: ['100x100', '0x300', '640x480f'], type: 'file' },
      ],
    };
    expect((await importSchema([docs, pbUsers])).status).toBe(200);
    const exported = (await h.req('GET', '/api/collections/meta/export', { token: su })).body as any[];
    const scans = exported.find((c) => c.name === 'docs').fields.find((f: any) => f.name === 'scans');
    // every key PocketBase writes, with the same value (Deskbase adds `help`, which PocketBase ignores)
    expect(scans).toMatchObject(docs.fields[1]);
    const avatar = exported.find((c) => c.name === 'users').fields.find((f: any) => f.name === 'avatar');
    const pbAvatar = pbUsers.fields.find((f) => f.name === 'avatar')!;
    expect(avatar).toMatchObject({ ...pbAvatar, thumbs: [] });
    // and back: the export imports unchanged
    const again = await importSchema(exported);
    expect(again.body.changes.every((c: any) => c.action === 'unchanged'), again.text).toBe(true);
  });

  it('OAuth2 set up here survives its own export imported back: still on, its client secret kept, nothing noted', async () => {
    const google = { name: 'google', clientId: 'client-id-1', clientSecret: 'CLIENT-SECRET-1' };
    const set = await h.req('PATCH', '/api/collections/users', { token: su, body: { oauth2: { enabled: true, providers: [google] } } });
    expect(set.status, set.text).toBe(200);
    const exported = (await h.req('GET', '/api/collections/meta/export', { token: su })).body as any[];
    expect(JSON.stringify(exported)).not.toContain(google.clientSecret);
    const again = await importSchema(exported);
    expect(again.status, again.text).toBe(200);
    expect(again.body.changes.find((c: any) => c.name === 'users')).toMatchObject({ action: 'unchanged', settings: [] });
    expect((again.body.notes as Note[]).filter((n) => n.item.startsWith('OAuth2'))).toEqual([]);
    const users = h.core.registry.get('users')!;
    expect(users.oauth2).toMatchObject({ enabled: true, providers: [{ name: 'google', clientId: 'client-id-1', clientSecret: google.clientSecret }] });
    // a set-up provider's settings that differ are not taken, and said so
    const changedId = exported.map((c) => (c.name === 'users' ? { ...c, oauth2: { ...c.oauth2, providers: [{ ...c.oauth2.providers[0], clientId: 'client-id-2', clientSecret: 'CLIENT-SECRET-2' }] } } : c));
    const changed = await importSchema(changedId);
    expect(changed.status, changed.text).toBe(200);
    expect((changed.body.notes as Note[]).find((n) => n.collection === 'users' && n.item === 'OAuth2 providers')?.reason).toContain('google');
    expect(h.core.registry.get('users')!.oauth2).toMatchObject({ enabled: true, providers: [{ name: 'google', clientId: 'client-id-1', clientSecret: google.clientSecret }] });
    // a provider this collection has not set up (its secret is in no export) still turns OAuth2 off, noted
    const other = exported.map((c) => (c.name === 'users' ? { ...c, oauth2: { ...c.oauth2, providers: [...c.oauth2.providers, { name: 'github', clientId: 'x' }] } } : c));
    const withGithub = await importSchema(other);
    expect(withGithub.status, withGithub.text).toBe(200);
    expect((withGithub.body.notes as Note[]).find((n) => n.collection === 'users' && n.item === 'OAuth2')?.reason).toContain('github');
    expect(h.core.registry.get('users')!.oauth2).toMatchObject({ enabled: false, providers: [{ name: 'google', clientSecret: google.clientSecret }] });
  });

  it('a second import of the same file changes nothing, and the ids stay the same', async () => {
    await importSchema([pbPosts, pbUsers]);
    const first = await schema();
    const again = await importSchema([pbPosts, pbUsers]);
    expect(again.status, again.text).toBe(200);
    expect(again.body.changes.map((c: any) => c.action)).toEqual(['unchanged', 'unchanged']);
    expect(await schema()).toEqual(first);
  });

  it('all or nothing: a bad collection names itself and the key, and nothing changes', async () => {
    const before = await schema();
    const bad = { name: 'broken', type: 'base', fields: [{ name: 'x', type: 'select', maxSelect: 1, values: 'no' }] };
    const r = await importSchema([pbPosts, bad]);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('"broken"');
    expect(r.body.message).toContain('fields.0.values');
    expect(r.body.data.collections['1'].fields['0'].values.code).toBe('validation_unsupported_value_type');
    expect(await schema()).toEqual(before);
    expect((await h.req('GET', '/api/collections/posts/records', { token: su })).status).toBe(404);
  });

  it('deleteMissing removes the collections the file leaves out, never system ones', async () => {
    await h.req('POST', '/api/collections', { token: su, body: { name: 'scratch' } });
    const r = await importSchema([pbPosts, pbUsers], { deleteMissing: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.changes.find((c: any) => c.name === 'scratch')).toMatchObject({ action: 'removed' });
    expect((await schema()).map((c) => c.name).sort()).toEqual(['_externalAuths', '_superusers', 'posts', 'users']);
  });

  it('a dry run answers the diff and changes nothing', async () => {
    const before = await schema();
    const r = await importSchema([pbPosts, pbUsers], { dryRun: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.dryRun).toBe(true);
    expect(r.body.changes.find((c: any) => c.name === 'posts')).toMatchObject({ action: 'added' });
    expect(await schema()).toEqual(before);
  });

  it('Deskbase → file → Deskbase: the export imports unchanged, here and into a fresh install', async () => {
    await importSchema([pbPosts, pbUsers]);
    await h.req('POST', '/api/collections', { token: su, body: { name: 'tags', fields: [{ name: 'label', type: 'text' }] } });
    const tags = (await schema()).find((c) => c.name === 'tags')!;
    await h.req('PATCH', '/api/collections/tags', { token: su, body: { indexes: [{ name: 'idx_tags_label', fields: [tags.fields[1].id], unique: true }], listRule: 'label != ""' } });
    const exported = (await h.req('GET', '/api/collections/meta/export', { token: su })).body as any[];
    expect(exported.map((c) => c.name)).toEqual(['users', 'posts', 'tags']);
    expect(exported[2].indexes).toEqual(['CREATE UNIQUE INDEX `idx_tags_label` ON `tags` (`label`)']);
    const before = await schema();
    const same = await importSchema(exported);
    expect(same.body.changes.every((c: any) => c.action === 'unchanged'), same.text).toBe(true);
    expect(await schema()).toEqual(before);

    const other = await harness();
    try {
      const token = await other.superuser();
      const r = await other.req('PUT', '/api/collections/import', { token, body: { collections: exported } });
      expect(r.status, r.text).toBe(200);
      const again = (await other.req('GET', '/api/collections/meta/export', { token })).body as any[];
      // users matched the fresh install's own users by name: its id is that one's, all else is equal
      const usersId = again.find((c) => c.name === 'users').id;
      const oldUsersId = exported.find((c) => c.name === 'users').id;
      expect(JSON.parse(JSON.stringify(again).replaceAll(usersId, oldUsersId))).toEqual(exported);
    } finally {
      await other.close();
    }
  });

  it('exports a selection by id or name', async () => {
    await importSchema([pbPosts, pbUsers]);
    const r = await h.req('GET', '/api/collections/meta/export?collections=posts', { token: su });
    expect(r.body.map((c: any) => c.name)).toEqual(['posts']);
    expect(r.body[0].indexes[0]).toBe('CREATE INDEX `idx_posts_status` ON `posts` (\n  `status`,\n  `views`\n)');
  });

  for (const app of ['beszel', 'upsnap', 'wanderer'] as const) {
    it.skipIf(sampleSchema(app) === null)(`imports the real ${app} schema`, async () => {
      const collections = sampleSchema(app)!;
      const r = await importSchema(collections, { deleteMissing: app === 'upsnap' });
      expect(r.status, r.text).toBe(200);
      const names = (await schema()).map((c) => c.name);
      const expected = collections.filter((c) => !['_mfas', '_otps', '_externalAuths', '_authOrigins'].includes(String(c.name))).map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(expected));
      // re-importing what we export changes nothing
      const exported = (await h.req('GET', '/api/collections/meta/export', { token: su })).body;
      const again = await importSchema(exported);
      expect(again.body.changes.every((c: any) => c.action === 'unchanged'), again.text).toBe(true);
    });
  }

  describe('truncate', () => {
    it('deletes every record with the cascades of single deletes, in one transaction', async () => {
      await importSchema([pbPosts, pbUsers]);
      await h.req('PATCH', '/api/collections/posts', { token: su, body: { fields: [...(await schema()).find((c) => c.name === 'posts')!.fields.map((f: any) => (f.name === 'author' ? { ...f, cascadeDelete: true } : f))] } });
      const u = await h.req('POST', '/api/collections/users/records', { token: su, body: { email: 'a@example.com', password: 'password123', passwordConfirm: 'password123' } });
      for (let i = 0; i < 3; i++) await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: `p${i}`, author: u.body.id } });
      await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'alone' } });
      const r = await h.req('DELETE', '/api/collections/users/truncate', { token: su });
      expect(r.status, r.text).toBe(204);
      const left = await h.req('GET', '/api/collections/posts/records', { token: su });
      expect(left.body.items.map((p: any) => p.title)).toEqual(['alone']);
      expect((await h.req('GET', '/api/collections/users/records', { token: su })).body.totalItems).toBe(0);
    });

    it('a required reference fails the whole truncate and keeps every record', async () => {
      await importSchema([pbPosts, pbUsers]);
      const posts = (await schema()).find((c) => c.name === 'posts')!;
      await h.req('PATCH', '/api/collections/posts', { token: su, body: { fields: posts.fields.map((f: any) => (f.name === 'author' ? { ...f, required: true } : f)) } });
      const u1 = await h.req('POST', '/api/collections/users/records', { token: su, body: { email: 'a@example.com', password: 'password123', passwordConfirm: 'password123' } });
      await h.req('POST', '/api/collections/users/records', { token: su, body: { email: 'b@example.com', password: 'password123', passwordConfirm: 'password123' } });
      await h.req('POST', '/api/collections/posts/records', { token: su, body: { title: 'p', author: u1.body.id } });
      const r = await h.req('DELETE', '/api/collections/users/truncate', { token: su });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Failed to truncate collection (most likely due to required cascade delete record references).');
      expect((await h.req('GET', '/api/collections/users/records', { token: su })).body.totalItems).toBe(2);
    });

    it('refuses _superusers and unknown collections', async () => {
      expect((await h.req('DELETE', '/api/collections/_superusers/truncate', { token: su })).status).toBe(400);
      expect((await h.req('DELETE', '/api/collections/nope/truncate', { token: su })).status).toBe(404);
    });
  });
});
