// Moving a desktop up (issue 25 step 6): a desktop data folder made through the API (users, a relation,
// a file, a protected file, an index, rules) moved by `npm run move-up` (runMoveUp, the command's own
// code) into a fresh PostgreSQL database, then served by startServer on it: the same records and the
// same answers, users and the superuser sign in with their passwords, files download. A destination
// that is not empty is refused, naming what is there; a move that fails leaves the destination empty.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { BATCH_ROWS } from '../../server/core/transfer/desktop-folder.js';
import { runMoveUp } from '../../server/move-up.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, startSdkServer } from '../support/sdk-server.js';

const NOTES = BATCH_ROWS * 2 + 234;

const USERS = [
  { email: 'ada@example.com', password: 'ada password 1', name: 'Ada' },
  { email: 'bob@example.com', password: 'bob password 2', name: 'Bob' },
];

let desktopDir = '';
const dbs: FreshDatabase[] = [];
/** What the desktop answered, to compare with the team server's answers. */
let before: Awaited<ReturnType<typeof answers>>;

function client(url: string): PocketBase {
  const pb = new PocketBase(url);
  pb.autoCancellation(false);
  return pb;
}

/** Runs the command with its console output captured; answers its exit code and the lines. */
async function moveUp(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  try {
    const code = await runMoveUp(args, (line) => lines.push(line), null);
    return { code, out: lines.join('\n'), err: errors.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

async function teamServer(url: string): Promise<RunningServer> {
  // a team server given no folder: its files are in the database
  return startServer({ dir: null, openStore: () => openPostgresStore({ url, max: 4 }), port: 0, uiDir: null, log: () => undefined });
}

/** Everything of a desktop's answers a move keeps (tokens and file-token-bearing URLs aside). */
async function answers(url: string) {
  const admin = client(url);
  await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  const ada = client(url);
  await ada.collection('users').authWithPassword(USERS[0].email, USERS[0].password);
  const posts = await admin.collection('posts').getFullList({ sort: 'title', expand: 'author' });
  const first = posts.find((p) => p.title === 'first')!;
  const fileBytes = await (await fetch(admin.files.getURL(first, first.doc))).text();
  const secretBytes = await (await fetch(admin.files.getURL(first, first.secret, { token: await admin.files.getToken() }))).text();
  return {
    posts,
    users: await admin.collection('users').getFullList({ sort: 'email' }),
    // the list rule decides what a user sees: same rule, same answer
    adaPosts: await ada.collection('posts').getFullList({ sort: '-created' }),
    collections: (await admin.collections.getFullList()).filter((c) => !c.system || c.name === '_superusers').sort((a, b) => a.name.localeCompare(b.name)),
    fileBytes,
    secretBytes,
    // in insertion order (the default order of a collection without `created`: `_rowid_`)
    notes: (await admin.collection('notes').getFullList({ batch: 1000 })).map((r) => `${r.id} ${r.n} ${r.text}`),
  };
}

describePostgres('npm run move-up: a desktop folder into a team server', () => {
  beforeAll(async () => {
    desktopDir = await mkdtemp(join(tmpdir(), 'deskbase-moveup-desktop-'));
    const desk = await startSdkServer({ dir: desktopDir });
    try {
      const pb = desk.admin;
      const users = [];
      for (const u of USERS) users.push(await pb.collection('users').create({ ...u, passwordConfirm: u.password }));
      await pb.collections.create({
        name: 'posts', type: 'base',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'author', type: 'relation', collectionId: (await pb.collections.getOne('users')).id, maxSelect: 1 },
          { name: 'doc', type: 'file', maxSelect: 1 },
          { name: 'secret', type: 'file', maxSelect: 1, protected: true },
          { name: 'score', type: 'number' },
          { name: 'done', type: 'bool' },
          { name: 'meta', type: 'json' },
          { name: 'created', type: 'autodate', onCreate: true },
          { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
        ],
        indexes: ['CREATE UNIQUE INDEX idx_posts_title ON posts (title)'],
        listRule: 'author = @request.auth.id', viewRule: 'author = @request.auth.id',
        createRule: '@request.auth.id != ""', updateRule: 'author = @request.auth.id', deleteRule: null,
      });
      const form = new FormData();
      form.append('title', 'first');
      form.append('author', users[0].id);
      form.append('score', '1.5');
      form.append('done', 'true');
      form.append('meta', JSON.stringify({ a: [1, 'x'] }));
      form.append('doc', new Blob(['the document']), 'doc.txt');
      form.append('secret', new Blob(['the secret']), 'secret.txt');
      await pb.collection('posts').create(form);
      await pb.collection('posts').create({ title: 'second', author: users[1].id, score: 2 });
      await pb.collection('posts').create({ title: 'third', author: users[0].id });
      // more records than one batch of the move (BATCH_ROWS), so several batches follow each other
      await pb.collections.create({ name: 'notes', type: 'base', fields: [{ name: 'n', type: 'number' }, { name: 'text', type: 'text' }], listRule: '' });
      const rows = Array.from({ length: NOTES }, (_, i) => JSON.stringify({ n: i, text: `note ${i} ${'x'.repeat(i % 50)}` })).join('\n');
      const imported = await fetch(`${desk.server.url}/api/collections/notes/records/import?format=ndjson`, {
        method: 'POST', headers: { authorization: pb.authStore.token, 'content-type': 'application/x-ndjson' }, body: rows,
      });
      expect(imported.status).toBe(200);
      before = await answers(desk.server.url);
      expect(before.adaPosts.map((p) => p.title)).toEqual(['third', 'first']);
    } finally {
      await desk.server.close();
    }
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
    if (desktopDir) await rm(desktopDir, { recursive: true, force: true });
  });

  it('prints the plan with --dry-run and changes nothing', async () => {
    const db = await freshDatabase('moveup_dry');
    dbs.push(db);
    const run = await moveUp(['--dir', desktopDir, '--db', db.url, '--dry-run']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/posts: base collection, 3 record\(s\), 2 file\(s\)/);
    expect(run.out).toMatch(/users: auth collection, 2 record\(s\)/);
    expect(run.out).toMatch(new RegExp(`notes: base collection, ${NOTES} record\\(s\\)`));
    expect(run.out).toMatch(/Sessions do not move/);
    expect(run.out).not.toContain(db.url.split('@')[0].split(':')[2]); // the password is never printed
    const tables = await db.sql`SELECT tablename FROM pg_tables WHERE tablename = 'posts'`;
    expect(tables).toHaveLength(0);
  });

  it('moves collections, records, passwords and files: the team server answers as the desktop did', async () => {
    const db = await freshDatabase('moveup');
    dbs.push(db);
    const run = await moveUp(['--dir', desktopDir, '--db', db.url, '--yes']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/posts: 3 record\(s\), 2 file\(s\)/);
    const team = await teamServer(db.url);
    try {
      const after = await answers(team.url); // the superuser and Ada sign in with their desktop passwords
      expect(after.posts).toEqual(before.posts);
      expect(after.users).toEqual(before.users);
      expect(after.adaPosts).toEqual(before.adaPosts);
      expect(after.collections).toEqual(before.collections);
      expect(after.fileBytes).toBe('the document');
      expect(after.secretBytes).toBe('the secret');
      // the files are the team server's database's, where every node reads them
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "_files" WHERE "staged" IS NULL AND "thumb" = ''`)[0].n).toBe(2);
      expect(after.notes).toHaveLength(NOTES);
      expect(after.notes).toEqual(before.notes);
      // the unique index came along: a second "first" is refused
      const bob = client(team.url);
      await bob.collection('users').authWithPassword(USERS[1].email, USERS[1].password);
      const dup = await bob.collection('posts').create({ title: 'first', author: bob.authStore.record!.id }).catch((e: unknown) => e);
      expect((dup as { status: number }).status).toBe(400);
      // a wrong password is still wrong
      const wrong = await client(team.url).collection('users').authWithPassword(USERS[1].email, 'not it').catch((e: unknown) => e);
      expect((wrong as { status: number }).status).toBe(400);
      // new records go after the moved ones in insertion order (`_rowid_` continues)
      const fourth = await bob.collection('posts').create({ title: 'fourth', author: bob.authStore.record!.id });
      const rows = await db.sql`SELECT "id" FROM "posts" ORDER BY "_rowid_"`;
      expect(rows.map((r) => r.id)).toEqual([...before.posts.slice().sort((a, b) => a.created.localeCompare(b.created)).map((p) => p.id), fourth.id]);
    } finally {
      await team.close();
    }

    // the same database again: not empty, refused with what is there, nothing changed
    const again = await moveUp(['--dir', desktopDir, '--db', db.url, '--yes']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^The destination is not empty: it has 2 collection\(s\) of its own \("posts", "notes"\)/);
    expect(again.err).toContain('2 record(s) in "users"');
    expect(again.err).toContain('1 record(s) in "_superusers"');
    expect((await db.sql`SELECT COUNT(*)::int AS n FROM "posts"`)[0].n).toBe(4);
  });

  it('all or nothing: a move that fails half-way leaves the destination empty and takes its files away', async () => {
    // a copy of the desktop with one more record PostgreSQL cannot take (text holding a NUL character,
    // which SQLite stores): the move fails at its last batch, after the users moved and the files were placed
    const copy = await mkdtemp(join(tmpdir(), 'deskbase-moveup-nul-'));
    const db = await freshDatabase('moveup_fail');
    dbs.push(db);
    try {
      await cp(desktopDir, copy, { recursive: true });
      const desk = await startServer({ dir: copy, port: 0, uiDir: null, log: () => undefined });
      try {
        const admin = client(desk.url);
        await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
        const form = new FormData();
        form.append('title', 'nul\u0000inside');
        form.append('doc', new Blob(['more']), 'more.txt');
        await admin.collection('posts').create(form);
      } finally {
        await desk.close();
      }
      const run = await moveUp(['--dir', copy, '--db', db.url, '--yes']);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^Moving failed, nothing was changed: .*"posts"/);
      const tables = (await db.sql`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`).map((r) => r.tablename);
      expect(tables).not.toContain('posts');
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "users"`)[0].n).toBe(0);
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "_superusers"`)[0].n).toBe(0);
      // the files placed before the transaction are gone again
      expect((await db.sql`SELECT COUNT(*)::int AS n FROM "_files"`)[0].n).toBe(0);
      // and the database is still empty: the same move from the good folder goes through
      const good = await moveUp(['--dir', desktopDir, '--db', db.url, '--yes']);
      expect(good.err).toBe('');
      expect(good.code).toBe(0);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  /**
   * A copy of the desktop folder changed through its own API by `change` (what it answers is handed
   * back), and a fresh database to move it into; both removed after `check`.
   */
  async function movedCopy<T>(label: string, change: (admin: PocketBase) => Promise<T>, check: (db: FreshDatabase, copy: string, changed: T) => Promise<void>): Promise<void> {
    const copy = await mkdtemp(join(tmpdir(), `deskbase-moveup-${label}-`));
    const db = await freshDatabase(`moveup_${label}`);
    dbs.push(db);
    try {
      await cp(desktopDir, copy, { recursive: true });
      const desk = await startServer({ dir: copy, port: 0, uiDir: null, log: () => undefined });
      let changed: T;
      try {
        const admin = client(desk.url);
        await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
        changed = await change(admin);
      } finally {
        await desk.close();
      }
      await check(db, copy, changed);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }

  const tablesOf = async (db: FreshDatabase) => (await db.sql`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`).map((r) => r.tablename);

  it('a view collection: served by the team server as on the desktop', async () => {
    await movedCopy('view', async (admin) => {
      await admin.collections.create({ name: 'post_titles', type: 'view', viewQuery: 'SELECT id, title FROM posts', listRule: '' });
      return admin.collection('post_titles').getFullList({ sort: 'title' });
    }, async (db, copy, view) => {
      const run = await moveUp(['--dir', copy, '--db', db.url, '--yes']);
      expect(run.err).toBe('');
      const team = await teamServer(db.url);
      try {
        expect(await client(team.url).collection('post_titles').getFullList({ sort: 'title' })).toEqual(view);
      } finally {
        await team.close();
      }
    });
  });

  it('the JS migrations the desktop applied stay applied: the same pb_migrations folder runs none of them again', async () => {
    const migrations = await mkdtemp(join(tmpdir(), 'deskbase-moveup-migrations-'));
    await writeFile(join(migrations, '1700000000_tags.js'), 'migrate((app) => { app.save(new Collection({ name: "tags", type: "base", fields: [{ name: "label", type: "text" }] })); });\n');
    try {
      await movedCopy('migrations', async () => undefined, async (db, copy) => {
        // the copy's own start applied it (pb_migrations given beside it)
        const desk = await startServer({ dir: copy, migrationsDir: migrations, port: 0, uiDir: null, log: () => undefined });
        await desk.close();
        const run = await moveUp(['--dir', copy, '--db', db.url, '--yes']);
        expect(run.err).toBe('');
        const team = await startServer({ dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4 }), migrationsDir: migrations, port: 0, uiDir: null, log: () => undefined });
        try {
          expect(team.core.registry.get('tags')).toBeDefined();
          expect((await db.sql`SELECT "file" FROM "_migrations"`).map((r) => r.file)).toEqual(['1700000000_tags.js']);
        } finally {
          await team.close();
        }
      });
    } finally {
      await rm(migrations, { recursive: true, force: true });
    }
  });

  it('a view the team server cannot make fails the move, naming it, with nothing changed', async () => {
    await movedCopy('badview', async (admin) => {
      // typeof() is SQLite's own: the team server does not translate it (docs/architecture.md, views)
      await admin.collections.create({ name: 'title_kinds', type: 'view', viewQuery: 'SELECT id, typeof(title) AS kind FROM posts', listRule: '' });
    }, async (db, copy) => {
      const run = await moveUp(['--dir', copy, '--db', db.url, '--yes']);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^The view collection "title_kinds" cannot be made on the destination \(.*typeof.*\).*nothing was changed/);
      expect(await tablesOf(db)).not.toContain('posts');
    });
  });

  it('a desktop collection or field named as PostgreSQL reserves (pg_settings, xmin) is refused up front, naming them, with nothing changed', async () => {
    await movedCopy('names', async (admin) => {
      // the desktop's SQLite has no such names of its own
      await admin.collections.create({ name: 'pg_settings', type: 'base', fields: [{ name: 'title', type: 'text' }] });
      await admin.collections.create({ name: 'versions', type: 'base', fields: [{ name: 'xmin', type: 'number' }] });
    }, async (db, copy) => {
      for (const args of [['--dry-run'], ['--yes']]) {
        const run = await moveUp(['--dir', copy, '--db', db.url, ...args]);
        expect(run.code, args[0]).toBe(1);
        expect(run.err, args[0]).toMatch(/reserves the name of the collection "pg_settings", the field "versions\.xmin"\..*nothing was changed/);
      }
      const tables = await tablesOf(db);
      expect(tables).not.toContain('posts');
      expect(tables).not.toContain('versions');
    });
  });

  it('refuses usage errors with a clear line', async () => {
    expect((await moveUp(['--dir', desktopDir])).code).toBe(2);
    const bad = await moveUp(['--dir', desktopDir, '--db', 'mysql://x']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--db takes a PostgreSQL URL/);
  });
});
