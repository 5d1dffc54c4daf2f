// What a superuser's import or restore can do to a running server (issue 21, items 6, 8, 9, 10, 11),
// against a server in its own process while `/api/health` is polled: each hostile upload gets its clear
// 400, nothing stored changes, and no health check waits 250 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_ROWS } from '../../server/core/transfer/records-import.js';
import { loadSqlJs } from '../../server/store/db.js';
import { unzip, zipOf } from '../files/zip-read.js';
import { pocketBaseDb } from '../transfer/pocketbase-db.js';
import { http } from '../fixtures/hardening-http.js';
import { whilePolled } from '../fixtures/health-poll.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';

const HEALTH_BOUND_MS = 250;

let server: ChildServer;
let url: string;
let su: string;

beforeAll(async () => {
  server = await startChildServer('imports');
  ({ url, su } = server);
  const r = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'title', type: 'text' }] } });
  expect(r.status, r.text).toBe(200);
  const docs = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'docs', fields: [{ name: 'att', type: 'file', maxSelect: 3 }] } });
  expect(docs.status, docs.text).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const worst: Record<string, number> = {};
afterAll(() => console.log(`imports: longest /api/health wait (ms), bound ${HEALTH_BOUND_MS}: ${JSON.stringify(worst)}`));

async function polled<T>(name: string, request: () => Promise<T>): Promise<T> {
  const { result, longest } = await whilePolled(url, request, server.child.proc.pid);
  worst[name] = Math.round(longest);
  expect(longest, `${name}: /api/health waited ${longest.toFixed(0)} ms`).toBeLessThan(HEALTH_BOUND_MS);
  return result;
}

const count = async (collection: string) => (await http(url, 'GET', `/api/collections/${collection}/records?perPage=1`, { token: su })).body.totalItems as number;

describe('item 11: a records import has a row cap', () => {
  it(`${MAX_IMPORT_ROWS + 1} rows of {} are refused while parsing, naming the limit; nothing is stored`, async () => {
    const ndjson = '{}\n'.repeat(MAX_IMPORT_ROWS + 1);
    const r = await polled('rows-over-cap', () => http(url, 'POST', '/api/collections/notes/records/import?format=ndjson', { token: su, raw: ndjson }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toBe('Failed to import records: more than 100,000 rows (the limit of one import); split the file and import it in parts.');
    expect(r.body.data.rows.code).toBe('validation_too_many_rows');
    expect(await count('notes')).toBe(0);
  }, 60_000);

  it('9 MB of empty JSON objects (3 million rows, once about 5 GB of prepared rows) is refused as quickly, not parsed whole', async () => {
    const body = `[${'{},'.repeat(3_000_000)}{}]`;
    const r = await polled('rows-3m', () => http(url, 'POST', '/api/collections/notes/records/import?format=json', { token: su, raw: body }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.rows.code).toBe('validation_too_many_rows');
    expect(await count('notes')).toBe(0);
  }, 60_000);
});

/** The server's own backup with its data.db changed by `edit` (sql.js), zipped again. */
async function hostileBackup(edit: (run: (sql: string) => void) => void): Promise<Buffer> {
  const res = await fetch(`${url}/api/backup`, { headers: { authorization: `Bearer ${su}` } });
  expect(res.status).toBe(200);
  const entries = await unzip(Buffer.from(await res.arrayBuffer()));
  const SQL = await loadSqlJs();
  const db = new SQL.Database(entries.get('data.db'));
  edit((sql) => db.run(sql));
  entries.set('data.db', Buffer.from(db.export()));
  db.close();
  return zipOf([...entries]);
}

const restore = (zip: Buffer) => http(url, 'POST', '/api/backup/restore', { token: su, raw: zip as unknown as string, headers: { 'content-type': 'application/zip' } });

describe('items 8 and 10: a restore checks what start-up and every backup will read, before the swap', () => {
  const hostile: [string, string, RegExp][] = [
    ['definition-not-json', `UPDATE _collections SET data = '{"id":' WHERE name = 'notes'`, /definition of collection .* cannot be loaded: not JSON/],
    ['definition-no-fields', `UPDATE _collections SET data = json_remove(data, '$.fields') WHERE name = 'notes'`, /cannot be loaded: it has no fields list/],
    ['definition-unsafe-id', `UPDATE _collections SET data = json_set(data, '$.id', '../../x') WHERE name = 'notes'`, /cannot be loaded: its id is missing or not a plain name/],
    ['definition-no-indexes', `UPDATE _collections SET data = json_remove(data, '$.indexes') WHERE name = 'notes'`, /cannot be loaded: its indexes are not a list of indexes/],
    ['no-superusers', `DELETE FROM _collections WHERE name = '_superusers'`, /it has no _superusers collection/],
    ['column-missing', 'ALTER TABLE notes DROP COLUMN title', /collection "notes" has no column for title/],
    ['record-id-dots', `INSERT INTO notes (id, title) VALUES ('../../../etc/x', '')`, /collection "notes" has a record whose id "..\/..\/..\/etc\/x" is not 15 characters/],
    ['auth-id-shared', `INSERT INTO users (id, email) SELECT id, 'mallory@example.com' FROM _superusers LIMIT 1`, /the auth collections "_superusers" and "users" both have a record with the id|the auth collections "users" and "_superusers" both have a record with the id/],
    ['file-name-dots', `INSERT INTO docs (id, att) VALUES ('aaaaaaaaaaaaaaa', '["../../../evil.txt"]')`, /a record names a file that is not a plain file name .*evil\.txt/],
    // a trigger would run its own SQL on every later write: here, every new superuser's password set to a known hash
    // reading it would write statistics the journal does not hold (store/statements.ts writingSchemaObjects)
    ['pragma-optimize-view', 'CREATE VIEW stats AS SELECT * FROM pragma_optimize(0x10002)', /data\.db in the archive has view "stats" running pragma_optimize \(.*use PRAGMA optimize\): drop it from that database and restore again/],
    ['trigger', `CREATE TRIGGER backdoor AFTER INSERT ON _superusers BEGIN UPDATE _superusers SET password = 'known' WHERE id = NEW.id; END`, /it holds a trigger \("backdoor"\); Deskbase makes none/],
  ];
  it.each(hostile)('%s: a 400 before the swap, and the data stays as it was', async (name, sql, message) => {
    const kept = await http(url, 'POST', '/api/collections/notes/records', { token: su, body: { title: `kept ${name}` } });
    expect(kept.status, kept.text).toBe(200);
    const zip = await hostileBackup((run) => run(sql));
    const r = await polled(`restore-${name}`, () => restore(zip));
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toMatch(/^Invalid backup archive: /);
    expect(r.body.message).toMatch(message);
    // nothing changed: the record made before is there, and a backup is whole
    expect((await http(url, 'GET', `/api/collections/notes/records/${kept.body.id}`, { token: su })).body.title).toBe(`kept ${name}`);
    const again = await fetch(`${url}/api/backup`, { headers: { authorization: `Bearer ${su}` } });
    expect((await unzip(Buffer.from(await again.arrayBuffer()))).has('data.db')).toBe(true);
  }, 60_000);

  it('the same backup unchanged restores (the checks pass what Deskbase writes)', async () => {
    const zip = await hostileBackup(() => undefined);
    const r = await polled('restore-plain', () => restore(zip));
    expect(r.status, r.text).toBe(200);
  }, 60_000);
});

describe('a restore builds every view again from its viewQuery', () => {
  it('a view planted over _sessions in the archive lists what its viewQuery reads, not session rows', async () => {
    const view = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'note_titles', type: 'view', listRule: '', viewQuery: 'SELECT id, title FROM notes' } });
    expect(view.status, view.text).toBe(200);
    expect((await http(url, 'POST', '/api/collections/notes/records', { token: su, body: { title: 'listed' } })).status).toBe(200);
    // the archive keeps the collection's viewQuery but its SQLite view reads _sessions' token hashes
    const zip = await hostileBackup((run) => {
      run('DROP VIEW note_titles');
      run('CREATE VIEW note_titles AS SELECT "id" AS "_rowid_", "id", "tokenHash" AS "title" FROM "_sessions"');
    });
    const r = await polled('restore-planted-view', () => restore(zip));
    expect(r.status, r.text).toBe(200);
    const titles = (await http(url, 'GET', '/api/collections/note_titles/records?perPage=500')).body.items.map((i: { title: string }) => i.title);
    expect(titles).toContain('listed');
    expect(titles.filter((t: string) => /^[0-9a-f]{64}$/.test(t))).toEqual([]);
    expect((await http(url, 'DELETE', `/api/collections/${view.body.id}`, { token: su })).status).toBe(204);
  }, 60_000);
});

describe('items 6, 8 and 9: a PocketBase folder planting ids, names and hashes', () => {
  it('is refused, naming each record, before anything changes', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database((await pocketBaseDb()).bytes);
    const superuser = (await http(url, 'GET', '/api/collections/_superusers/records', { token: su })).body.items[0].id as string;
    // an auth id the server's superuser has (the takeover), a `..` id and file name, a bcrypt cost of 31
    db.run(`UPDATE users SET id = ? WHERE email = 'bob@example.com'`, [superuser]);
    db.run(`UPDATE posts SET id = '../../../../x' WHERE id = 'post00000000002'`);
    db.run(`UPDATE posts SET cover = '../../../evil.png' WHERE id = 'post00000000001'`);
    db.run(`UPDATE users SET password = '$2b$31$' || substr(password, 8) WHERE email = 'ada@example.com'`);
    const bytes = db.export();
    db.close();
    const before = (await http(url, 'GET', '/api/collections?perPage=200', { token: su })).body.totalItems;
    for (const query of ['?dryRun=true', '']) {
      const r = await polled(`pocketbase-import${query}`, () => http(url, 'POST', `/api/import/pocketbase${query}`, { token: su, raw: Buffer.from(bytes) as unknown as string, headers: { 'content-type': 'application/octet-stream' } }));
      expect(r.status, r.text).toBe(400);
      expect(r.body.message).toMatch(/^Failed to import the records: 4 record\(s\) refused, nothing was changed: /);
      expect(r.body.message).toContain(`users "${superuser}": a record of another auth collection has the same id`);
      expect(r.body.message).toContain('users "adaada000000001": its password hash cannot be used here: bcrypt cost 31');
      expect(r.body.message).toContain('posts "../../../../x": the id is not 15 characters');
      expect(r.body.message).toContain('posts "post00000000001": the file name "../../../evil.png" in "cover"');
    }
    expect((await http(url, 'GET', '/api/collections?perPage=200', { token: su })).body.totalItems).toBe(before);
  }, 60_000);
});

describe('item 9: hashes with absurd parameters, planted through a restore', () => {
  it('each sign-in against them is the ordinary failure, at once, and other sign-ins go on', async () => {
    await http(url, 'PATCH', '/api/collections/users', { token: su, body: { createRule: '' } });
    for (const who of ['slow', 'wide', 'plain']) {
      const r = await http(url, 'POST', '/api/collections/users/records', { body: { email: `${who}@example.com`, password: 'password123', passwordConfirm: 'password123' } });
      expect(r.status, r.text).toBe(200);
    }
    const salt = Buffer.alloc(16, 1).toString('base64');
    const key = Buffer.alloc(64, 2).toString('base64');
    const zip = await hostileBackup((run) => {
      run(`UPDATE users SET password = '$2b$31$${'a'.repeat(53)}' WHERE email = 'slow@example.com'`);
      run(`UPDATE users SET password = 'scrypt$16384$8$1073741824$${salt}$${key}' WHERE email = 'wide@example.com'`);
    });
    expect((await restore(zip)).status).toBe(200);
    const signIn = (email: string) => http(url, 'POST', '/api/collections/users/auth-with-password', { body: { identity: email, password: 'password123' } });
    const [slow, slow2, wide, plain] = await polled('hash-params', () => Promise.all([signIn('slow@example.com'), signIn('slow@example.com'), signIn('wide@example.com'), signIn('plain@example.com')]));
    for (const r of [slow, slow2, wide]) expect(r.body).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    expect(plain.status, plain.text).toBe(200);
  }, 60_000);
});
