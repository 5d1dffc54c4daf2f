// Moving data between engines through the desktop's own export and import (issue 25 step 6): the
// collections export (GET /api/collections/meta/export) and import (PUT /api/collections/import), the
// records export and import in CSV, JSON and NDJSON, and the PocketBase import, from a desktop server
// into a team server on a real PostgreSQL, over HTTP with the official SDK signed in. The team server
// answers the same as the desktop: the same collections JSON, the same records export, byte for byte.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../server/store/db.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { pocketBaseDb } from '../transfer/pocketbase-db.js';
import { pocketBaseData, pocketBaseZip } from '../transfer/pocketbase-storage.js';

const TYPES = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' } as const;

let desktop: SdkServer;
let team: SdkServer;
/** A second desktop given the same imports as the team server (CSV does not carry every value as it was). */
let mirror: SdkServer;
const dbs: FreshDatabase[] = [];

let teamDb: FreshDatabase;

async function teamServer(label: string): Promise<SdkServer> {
  const db = await freshDatabase(label);
  dbs.push(db);
  if (label === 'transfer') teamDb = db;
  return startSdkServer({ openStore: () => openPostgresStore({ url: db.url, max: 4 }) });
}

/** One HTTP call as the server's superuser: the status and the body's text. */
async function call(s: SdkServer, method: string, path: string, body?: string, type = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: s.admin.authStore.token, ...(body === undefined ? {} : { 'content-type': type }) },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Empties books and authors of a server of this file: the team server's tables through PostgreSQL, the mirror's through its store. */
async function clear(s: SdkServer): Promise<void> {
  if (s === team) await teamDb.sql.unsafe('DELETE FROM "books"; DELETE FROM "authors"');
  else await s.server.core.store.write(async (tx) => {
    await tx.run('DELETE FROM "books"');
    await tx.run('DELETE FROM "authors"');
  });
}

async function exportRecords(s: SdkServer, collection: string, format: keyof typeof TYPES): Promise<string> {
  const res = await call(s, 'GET', `/api/collections/${collection}/records/export?format=${format}&sort=created,id`);
  expect(res.status, res.text).toBe(200);
  return res.text;
}

describePostgres('export from a desktop server, import into a team server', () => {
  beforeAll(async () => {
    desktop = await startSdkServer({ openStore: () => openStore({ dir: null }) });
    team = await teamServer('transfer');
    mirror = await startSdkServer({ openStore: () => openStore({ dir: null }) });
    const pb = desktop.admin;
    const authors = await pb.collections.create({
      name: 'authors', type: 'base',
      fields: [
        { name: 'name', type: 'text', required: true },
        { name: 'born', type: 'date' },
        { name: 'created', type: 'autodate', onCreate: true },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
      indexes: ['CREATE UNIQUE INDEX idx_authors_name ON authors (name)'],
      listRule: '', viewRule: '',
    });
    await pb.collections.create({
      name: 'books', type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'authors', type: 'relation', collectionId: authors.id, maxSelect: 5 },
        { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
        { name: 'pages', type: 'number' },
        { name: 'inPrint', type: 'bool' },
        { name: 'meta', type: 'json' },
        { name: 'site', type: 'url' },
        { name: 'created', type: 'autodate', onCreate: true },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
      indexes: ['CREATE INDEX idx_books_title ON books (title)'],
      listRule: '@request.auth.id != ""', viewRule: 'authors.name ?= "Ada"',
    });
    const ids: string[] = [];
    for (const name of ['Ada', 'Émile Zola', '李白', 'O\'Brien, "the" author']) ids.push((await pb.collection('authors').create({ name, born: '1815-12-10 00:00:00.000Z' })).id);
    for (let i = 0; i < 40; i++) {
      await pb.collection('books').create({
        title: i % 7 === 0 ? '' : `Book ${i}, "quoted"\nsecond line =1+1`,
        authors: ids.slice(i % 4, (i % 4) + 1 + (i % 2)),
        tags: i % 3 === 0 ? [] : ['a', 'c'].slice(0, 1 + (i % 2)),
        pages: i % 5 === 0 ? 0 : i * 10.5,
        inPrint: i % 2 === 0,
        meta: i % 4 === 0 ? null : { n: i, list: [1, 'two', { three: 3 }], text: 'ünïcode ✓' },
        site: i % 3 === 0 ? '' : `https://example.com/${i}`,
      });
    }
  });
  afterAll(async () => {
    await desktop?.server.close();
    await team?.server.close();
    await mirror?.server.close();
    for (const db of dbs) await db.drop();
  });

  it('collections: the desktop export imported into the team server exports the same JSON', async () => {
    const out = await call(desktop, 'GET', '/api/collections/meta/export');
    expect(out.status).toBe(200);
    const collections = JSON.parse(out.text) as { id: string; name: string }[];
    for (const s of [team, mirror]) {
      const put = await call(s, 'PUT', '/api/collections/import', JSON.stringify({ collections, deleteMissing: false }));
      expect(put.status, put.text).toBe(200);
    }
    // `users`, which every server makes, keeps the id it has there (matched by name); everything else is the same
    const back = await call(team, 'GET', '/api/collections/meta/export');
    const teamUsers = (await team.admin.collections.getOne('users')).id;
    const deskUsers = collections.find((c) => c.name === 'users')!.id;
    expect(JSON.parse(back.text.replaceAll(teamUsers, deskUsers))).toEqual(collections);
  });

  for (const format of ['csv', 'json', 'ndjson'] as const) {
    it(`records as ${format}: the team server holds and answers what a desktop given the same import does`, async () => {
      for (const s of [team, mirror]) {
        // emptied in SQL, not through the truncate endpoint: this test is about the import, and a write
        // on PostgreSQL can pass its 150 ms budget on a loaded machine (answered with a 500 today)
        await clear(s);
        for (const c of ['authors', 'books']) {
          const body = await exportRecords(desktop, c, format);
          const imported = await call(s, 'POST', `/api/collections/${c}/records/import?format=${format}`, body, TYPES[format]);
          expect(imported.status, imported.text).toBe(200);
          expect(JSON.parse(imported.text).imported).toBe(c === 'books' ? 40 : 4);
        }
      }
      for (const c of ['authors', 'books']) {
        for (const f of ['json', 'csv'] as const) {
          const held = await exportRecords(team, c, f);
          expect(held, `${c} as ${f}`).toBe(await exportRecords(mirror, c, f));
          // JSON and NDJSON carry every value as it was: the team server holds exactly the desktop's records
          if (format !== 'csv') expect(held, `${c} as ${f}`).toBe(await exportRecords(desktop, c, f));
        }
      }
      // and the same answers through the API: a list with a filter through a relation, sorted, expanded
      const query = { filter: 'authors.name ?= "Ada" && pages > 0', sort: '-pages,id', expand: 'authors' };
      expect(await team.admin.collection('books').getFullList(query)).toEqual(await mirror.admin.collection('books').getFullList(query));
    });
  }

  it('the PocketBase import answers on the team server as on the desktop, and users sign in there', async () => {
    const pb = await pocketBaseDb();
    const servers = [await startSdkServer({ openStore: () => openStore({ dir: null }) }), await teamServer('pocketbase')];
    try {
      const answers = [];
      for (const s of servers) {
        const r = await call(s, 'POST', '/api/import/pocketbase', new Blob([new Uint8Array(pb.bytes)]) as unknown as string, 'application/octet-stream');
        expect(r.status, r.text).toBe(200);
        const user = s.client();
        await user.collection('users').authWithPassword('ada@example.com', pb.passwords['ada@example.com']);
        const answer = {
          import: JSON.parse(r.text),
          users: await exportRecords(s, 'users', 'json'),
          posts: await exportRecords(s, 'posts', 'json'),
          schema: JSON.parse((await call(s, 'GET', '/api/collections/meta/export')).text),
          mine: await user.collection('users').getFullList(),
        };
        // the `users` collection each server made keeps its own id (the import matches it by name)
        answers.push(JSON.parse(JSON.stringify(answer).replaceAll((await s.admin.collections.getOne('users')).id, 'USERS')));
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(JSON.parse(answers[1].posts)).toHaveLength(2);
    } finally {
      for (const s of servers) await s.server.close();
    }
  });

  it('a PocketBase backup zip with files into a team server: the files land in its database and are served; a failed import leaves none', async () => {
    const pb = await pocketBaseData();
    const s = await teamServer('pocketbase_files');
    const db = dbs[dbs.length - 1];
    try {
      const upload = async () => {
        const r = await call(s, 'POST', '/api/import/pocketbase', new Uint8Array(await pocketBaseZip(pb)) as unknown as string, 'application/zip');
        return { status: r.status, body: JSON.parse(r.text) };
      };
      // a record with one of the zip's ids is here already: the records' insert fails after the files were placed
      await s.admin.collection('users').create({ id: 'adaada000000001', email: 'other@example.com', password: 'password123', passwordConfirm: 'password123' });
      const failed = await upload();
      expect(failed.status).toBe(400);
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "_files"`)[0].n).toBe(0);
      await s.admin.collection('users').delete('adaada000000001');

      const r = await upload();
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.records).toEqual(expect.arrayContaining([{ collection: 'posts', count: 2, files: 3 }, { collection: 'users', count: 2, files: 1 }]));
      for (const f of pb.files) {
        const collection = (await s.admin.collections.getOne(f.collection === '_pb_users_auth_' ? 'users' : 'posts')).id;
        const res = await fetch(`${s.server.url}/api/files/${collection}/${f.record}/${f.name}`);
        expect(res.status, f.name).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()), f.name).toEqual(f.bytes);
      }
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "_files" WHERE "staged" IS NULL`)[0].n).toBe(pb.files.length);
    } finally {
      await s.server.close();
    }
  });
});
