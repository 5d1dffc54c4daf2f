// JS migrations (pb_migrations/*.js, written as PocketBase's docs and its `migrate create`/`migrate
// collections` templates write them) applied by startServer({ migrationsDir }) at start: file-name
// order, each once, each in its own transaction, recorded in `_migrations`; the collections they save
// go through Deskbase's collection code; checked through the official SDK over a real socket, on both
// engines (ON_BOTH_ENGINES).
import { afterAll, describe, expect, it } from 'vitest';
import { failure, startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { openTestStore } from '../support/test-store.js';
import { startServer } from '../../server/index.js';
import type { Store } from '../../server/store/db.js';
import { sampleSchema } from '../transfer/pocketbase-fixtures.js';
import { snapshotTemplate } from '../../server/migrate-cli.js';
import { hooksFolder } from './support.js';
import { applyMigrations } from '../../server/hooks/migrations-host.js';

const REF = '/// <reference path="../pb_data/types.d.ts" />\n';

/** A store the server's close leaves open (a failed start closes its store), closed by `end()`. */
async function keptStore(label: string): Promise<{ store: Store; end: () => Promise<void> }> {
  const store = await openTestStore(label);
  const close = store.close.bind(store);
  return { store: Object.assign(store, { close: async () => {} }), end: close };
}

const applied = async (store: Store) => (await store.all<{ file: string }>('SELECT "file" FROM "_migrations" ORDER BY "file"')).map((r) => r.file);

const MIGRATIONS = {
  // written later than the next ones, but first by name: its collection is what they use
  '1700000000_created_posts.js': `${REF}migrate((app) => {
  const collection = new Collection({
    name: "posts",
    type: "base",
    listRule: "",
    viewRule: "",
    fields: [
      { name: "title", type: "text", required: true, max: 100 },
    ],
    indexes: ["CREATE INDEX \`idx_posts_title\` ON \`posts\` (\`title\`)"],
  });
  collection.fields.add(new NumberField({ name: "views", min: 0, onlyInt: true }));
  collection.fields.add(new BoolField({ name: "published" }));
  return app.save(collection);
}, (app) => {
  const collection = app.findCollectionByNameOrId("posts");
  return app.delete(collection);
})
`,
  '1700000100_seed_posts.js': `${REF}migrate((app) => {
  const posts = app.findCollectionByNameOrId("posts");
  for (const [title, views] of [["First Post", 3], ["Second Post", 7]]) {
    const record = new Record(posts);
    record.set("title", title);
    record.set("views", views);
    app.save(record);
  }
}, (app) => {
  app.db().newQuery("DELETE FROM {{posts}}").execute();
})
`,
  '1700000200_updated_posts.js': `${REF}migrate((app) => {
  const collection = app.findCollectionByNameOrId("posts");
  collection.fields.removeByName("published");
  collection.fields.getByName("title").max = 50;
  collection.fields.addAt(1, new TextField({ name: "slug" }));
  unmarshal({ createRule: "@request.auth.id != ''" }, collection);
  app.save(collection);
  app.db().newQuery("UPDATE {{posts}} SET [[slug]] = lower(replace([[title]], ' ', '-'))").execute();
}, (app) => {
  const collection = app.findCollectionByNameOrId("posts");
  collection.fields.removeByName("slug");
  collection.fields.add(new BoolField({ name: "published" }));
  unmarshal({ createRule: null }, collection);
  return app.save(collection);
})
`,
};

describe('pb_migrations at start', () => {
  const servers: SdkServer[] = [];
  const ends: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const s of servers) await s.server.close();
    for (const end of ends) await end();
  });

  it('applies the files in file-name order, each in its transaction, recorded in _migrations; a second start applies none', async () => {
    const dir = hooksFolder(MIGRATIONS);
    const { store, end } = await keptStore('migrations-order');
    ends.push(end);
    const sdk = await startSdkServer({ openStore: async () => store, migrationsDir: dir });
    servers.push(sdk);
    const posts = await sdk.admin.collections.getOne('posts');
    expect(posts.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'slug', 'title', 'views']);
    expect(posts.fields.find((f: { name: string }) => f.name === 'title')).toMatchObject({ type: 'text', required: true, max: 50 });
    expect(posts.fields.find((f: { name: string }) => f.name === 'views')).toMatchObject({ type: 'number', min: 0, onlyInt: true });
    expect(posts.createRule).toBe("@request.auth.id != ''");
    expect(posts.indexes.some((i: unknown) => JSON.stringify(i).includes('idx_posts_title'))).toBe(true);
    const list = await sdk.client().collection('posts').getFullList({ sort: 'title' });
    expect(list.map((r) => [r.title, r.slug, r.views])).toEqual([['First Post', 'first-post', 3], ['Second Post', 'second-post', 7]]);
    expect(await applied(store)).toEqual(Object.keys(MIGRATIONS));

    // the same folder again (what every start does): nothing runs twice (the seed would add two more posts)
    expect(await applyMigrations(sdk.server.hooks!, sdk.server.core, dir, () => {})).toEqual([]);
    expect((await sdk.admin.collection('posts').getFullList()).length).toBe(2);
    expect(await applied(store)).toEqual(Object.keys(MIGRATIONS));
  });

  it('a failing file rolls back alone and stops the start with its name and line; the ones before it stay applied', async () => {
    const dir = hooksFolder({
      '1700000000_a.js': `migrate((app) => {
  app.save(new Collection({ name: "kept", type: "base", fields: [{ name: "title", type: "text" }] }));
});
`,
      '1700000100_b.js': `migrate((app) => {
  app.save(new Collection({ name: "dropped", type: "base", fields: [{ name: "title", type: "text" }] }));
  app.db().newQuery("INSERT INTO {{kept}} ([[id]], [[title]]) VALUES ('aaaaaaaaaaaaaaa', 'x')").execute();
  throw new Error("the schema is not what I expected");
});
`,
      '1700000200_c.js': `migrate((app) => {
  app.save(new Collection({ name: "never", type: "base" }));
});
`,
    });
    const { store, end } = await keptStore('migrations-fail');
    ends.push(end);
    const err = await startServer({ dir: null, openStore: async () => store, migrationsDir: dir, port: 0, uiDir: null, log: () => {} }).then(
      (s) => s.close().then(() => null),
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe('Failed to apply migration 1700000100_b.js: the schema is not what I expected (1700000100_b.js:4)');
    expect(await applied(store)).toEqual(['1700000000_a.js']);
    const tables = (await store.all<{ id: string; name: string }>('SELECT "id", "name" FROM "_collections"')).map((r) => r.name);
    expect(tables).toContain('kept');
    expect(tables).not.toContain('dropped');
    expect(tables).not.toContain('never');
    expect(await store.all('SELECT "id" FROM "kept"')).toEqual([]);
  });

  it('a collection Deskbase cannot store as written fails the file, naming what and where', async () => {
    const dir = hooksFolder({
      '1_bad.js': `migrate((app) => {
  const c = new Collection({ name: "bad", type: "base" });
  c.fields.add(new TextField({ name: "title" }));
  c.fields.add(new RelationField({ name: "owner", collectionId: "nope", maxSelect: 1 }));
  app.save(c);
});
`,
    });
    const twice = hooksFolder({
      '1_twice.js': `migrate((app) => {
  app.save(new Collection({ name: "tags", type: "base" }));
  app.save(new Collection({ name: "Tags", type: "base" }));
});
`,
    });
    const dup = await startServer({ dir: null, migrationsDir: twice, port: 0, uiDir: null, log: () => {} }).then(
      (s) => s.close().then(() => null),
      (e: unknown) => e as Error,
    );
    expect(dup?.message).toBe('Failed to apply migration 1_twice.js: Failed to save collection "Tags": name: Collection name must be unique (case insensitive). (1_twice.js:3)');
    const err = await startServer({ dir: null, migrationsDir: dir, port: 0, uiDir: null, log: () => {} }).then(
      (s) => s.close().then(() => null),
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe('Failed to apply migration 1_bad.js: Failed to save collection "bad": field owner: Its related collection "nope" is not imported; the field was left out. (1_bad.js:5)');
  });

  it("applies the files PocketBase's automigrate writes: ids pbc_…, _pb_users_auth_, new Field(...) by id, unmarshal, delete", async () => {
    const idField = { autogeneratePattern: '[a-z0-9]{15}', hidden: false, id: 'text3208210256', max: 15, min: 15, name: 'id', pattern: '^[a-z0-9]+$', presentable: false, primaryKey: true, required: true, system: true, type: 'text' };
    const title = { autogeneratePattern: '', hidden: false, id: 'text724990059', max: 0, min: 0, name: 'title', pattern: '', presentable: false, primaryKey: false, required: false, system: false, type: 'text' };
    const author = { cascadeDelete: false, collectionId: '_pb_users_auth_', hidden: false, id: 'relation3182418120', maxSelect: 1, minSelect: 0, name: 'author', presentable: false, required: false, system: false, type: 'relation' };
    const created = { hidden: false, id: 'autodate2990389176', name: 'created', onCreate: true, onUpdate: false, presentable: false, system: false, type: 'autodate' };
    const collection = (id: string, name: string) => JSON.stringify({ createRule: null, deleteRule: null, fields: [idField, title, author, created], id, indexes: [], listRule: null, name, system: false, type: 'base', updateRule: null, viewRule: null }, null, 2);
    const dir = hooksFolder({
      '1748000000_created_articles.js': `${REF}migrate((app) => {
  const collection = new Collection(${collection('pbc_1125843985', 'articles')});

  return app.save(collection);
}, (app) => {
  const collection = app.findCollectionByNameOrId("pbc_1125843985");

  return app.delete(collection);
})
`,
      '1748000100_updated_articles.js': `${REF}migrate((app) => {
  const collection = app.findCollectionByNameOrId("pbc_1125843985")

  // update collection data
  unmarshal({
    "listRule": "",
    "viewRule": "author = @request.auth.id"
  }, collection)

  // add field
  collection.fields.addAt(2, new Field({
    "hidden": false,
    "id": "bool1748787223",
    "name": "published",
    "presentable": false,
    "required": false,
    "system": false,
    "type": "bool"
  }))

  // update field
  collection.fields.addAt(1, new Field(${JSON.stringify({ ...title, max: 120, required: true })}))

  return app.save(collection)
}, (app) => {
  const collection = app.findCollectionByNameOrId("pbc_1125843985")
  collection.fields.removeById("bool1748787223")
  return app.save(collection)
})
`,
      '1748000200_created_drafts.js': `${REF}migrate((app) => {
  app.save(new Collection(${collection('pbc_2000000001', 'drafts')}));
  const drafts = app.findCollectionByNameOrId("pbc_2000000001");
  app.save(new Record(drafts, { title: "kept for a moment" }));
})
`,
      '1748000300_deleted_drafts.js': `${REF}migrate((app) => {
  const collection = app.findCollectionByNameOrId("pbc_2000000001");

  return app.delete(collection);
})
`,
    });
    const sdk = await startSdkServer({ migrationsDir: dir });
    servers.push(sdk);
    const articles = await sdk.admin.collections.getOne('articles');
    const users = await sdk.admin.collections.getOne('users');
    expect(articles.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'title', 'published', 'author', 'created']);
    expect(articles.fields.find((f: { name: string }) => f.name === 'title')).toMatchObject({ id: 'text724990059', max: 120, required: true });
    expect(articles.fields.find((f: { name: string }) => f.name === 'author')).toMatchObject({ collectionId: users.id, maxSelect: 1 });
    expect([articles.listRule, articles.viewRule]).toEqual(['', 'author = @request.auth.id']);
    expect((await sdk.admin.collections.getFullList()).map((c) => c.name)).not.toContain('drafts');
  });

  it("a file may run past the hooks' time limit: migrations have a limit of their own", async () => {
    const dir = hooksFolder({
      '1_slow.js': `migrate((app) => {
  sleep(1500);
  app.save(new Collection({ name: "slow", type: "base", fields: [{ name: "title", type: "text" }] }));
});
`,
    });
    // the hooks' limit also bounds a worker's load: 1 s leaves a busy machine room for that
    const sdk = await startSdkServer({ migrationsDir: dir, hooksTimeoutMs: 1000 });
    servers.push(sdk);
    expect((await sdk.admin.collections.getFullList()).map((c) => c.name)).toContain('slow');
  });

  it('every field class PocketBase has, an auth collection with its options, indexes by addIndex', async () => {
    const dir = hooksFolder({
      '1_fields.js': `migrate((app) => {
  const members = new Collection({
    type: "auth",
    name: "members",
    authRule: "verified = true",
    manageRule: null,
    passwordAuth: { enabled: true, identityFields: ["email", "handle"] },
    listRule: "id = @request.auth.id",
  });
  members.fields.add(new TextField({ name: "handle", required: true, min: 3, max: 20, pattern: "^[a-z0-9_]+$" }));
  members.addIndex("idx_members_handle", true, "handle", "");
  app.save(members);

  const c = new Collection({ name: "everything", type: "base" });
  c.fields.add(
    new TextField({ name: "text", max: 10 }),
    new NumberField({ name: "number", min: 1, max: 9, onlyInt: true }),
    new BoolField({ name: "bool" }),
    new EmailField({ name: "email", onlyDomains: ["example.com"] }),
    new URLField({ name: "url", exceptDomains: ["bad.example"] }),
    new EditorField({ name: "editor", maxSize: 2048 }),
    new DateField({ name: "date", min: "2020-01-01 00:00:00.000Z" }),
    new AutodateField({ name: "created", onCreate: true }),
    new SelectField({ name: "select", values: ["a", "b"], maxSelect: 2 }),
    new FileField({ name: "file", maxSelect: 1, maxSize: 1024, mimeTypes: ["image/png"] }),
    new RelationField({ name: "member", collectionId: members.id, maxSelect: 1, cascadeDelete: true }),
    new JSONField({ name: "json", maxSize: 100 }),
    new GeoPointField({ name: "geo" }),
  );
  c.fields.add(new PasswordField({ name: "secret", min: 8 }));
  c.fields.removeById(c.fields.getByName("secret").id);
  if (c.fields.getById(c.fields.getByName("text").id).name !== "text") throw new Error("getById");
  app.save(c);
});
`,
    });
    const sdk = await startSdkServer({ migrationsDir: dir });
    servers.push(sdk);
    const members = await sdk.admin.collections.getOne('members');
    expect(members).toMatchObject({ type: 'auth', authRule: 'verified = true', manageRule: null, listRule: 'id = @request.auth.id' });
    expect(members.passwordAuth.identityFields).toEqual(['email', 'handle']);
    expect(members.fields.find((f: { name: string }) => f.name === 'handle')).toMatchObject({ type: 'text', required: true, min: 3, max: 20, pattern: '^[a-z0-9_]+$' });
    const c = await sdk.admin.collections.getOne('everything');
    const field = (name: string) => c.fields.find((f: { name: string }) => f.name === name);
    expect(c.fields.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).toEqual([
      'id:text', 'text:text', 'number:number', 'bool:bool', 'email:email', 'url:url', 'editor:editor', 'date:date', 'created:autodate',
      'select:select', 'file:file', 'member:relation', 'json:json', 'geo:geoPoint',
    ]);
    expect(field('number')).toMatchObject({ min: 1, max: 9, onlyInt: true });
    expect(field('email')).toMatchObject({ onlyDomains: ['example.com'] });
    expect(field('url')).toMatchObject({ exceptDomains: ['bad.example'] });
    expect(field('editor')).toMatchObject({ maxSize: 2048 });
    expect(field('select')).toMatchObject({ values: ['a', 'b'], maxSelect: 2 });
    expect(field('file')).toMatchObject({ maxSelect: 1, maxSize: 1024, mimeTypes: ['image/png'] });
    expect(field('member')).toMatchObject({ collectionId: members.id, maxSelect: 1, cascadeDelete: true });
    expect(field('json')).toMatchObject({ maxSize: 100 });
    // the values the fields allow are enforced as Deskbase enforces them
    expect(Object.keys((await failure(sdk.admin.collection('everything').create({ text: 'far too long text' }))).response.data)).toEqual(['text']);
    const err = await failure(sdk.admin.collection('everything').create({ text: 'short', number: 12, email: 'x@other.org' }));
    expect(Object.keys(err.response.data).sort()).toEqual(['email', 'number']);
  });

  it("applies the snapshot PocketBase's `migrate collections` writes for a real app's schema", async () => {
    const schema = sampleSchema('beszel');
    if (schema === null) return;
    const dir = hooksFolder({ '1700000000_collections_snapshot.js': snapshotTemplate(schema) });
    const sdk = await startSdkServer({ migrationsDir: dir });
    servers.push(sdk);
    const names = (await sdk.admin.collections.getFullList()).map((c) => c.name);
    const expected = schema.map((c) => String(c.name)).filter((n) => !['_mfas', '_otps', '_externalAuths', '_authOrigins'].includes(n));
    expect(names).toEqual(expect.arrayContaining(expected));
  });
});
