// The PocketBase import shows what it would change before it changes anything (issue 21, item 7):
// `?dryRun=true` answers the diff, the record counts and the notes with nothing applied; a stored
// collection the folder also has (`users`) is merged: no field is dropped with its data, same-named
// fields keep their values; rules the folder opens are flagged as warnings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { runImport } from '../../server/import-pocketbase.js';
import { loadSqlJs, openStore } from '../../server/store/db.js';
import { pocketBaseData, writePocketBaseFolder } from './pocketbase-storage.js';
import { eachSuperuser, signUpUser, type Harness } from '../support/harness.js';
import { pocketBaseDb } from './pocketbase-db.js';

async function upload(h: Harness, token: string, bytes: Uint8Array, query = ''): Promise<{ status: number; body: any }> {
  const r = await h.app.request(`http://localhost:8090/api/import/pocketbase${query}`, {
    method: 'POST', headers: { host: 'localhost:8090', authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: new Blob([new Uint8Array(bytes)]),
  });
  return { status: r.status, body: JSON.parse(await r.text()) };
}

/** PocketBase's test data.db with `sql` run on it. */
async function pbWith(...sql: string[]): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database((await pocketBaseDb()).bytes);
  for (const text of sql) db.run(text);
  const bytes = db.export();
  db.close();
  return bytes;
}

describe('the PocketBase import plan', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const schema = async (name: string) => (await h.req('GET', `/api/collections/${name}`, { token: su })).body;

  it('?dryRun=true answers the diff, the records and the notes, and applies nothing', async () => {
    const usersBefore = await schema('users');
    const r = await upload(h, su, (await pocketBaseDb()).bytes, '?dryRun=true');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.dryRun).toBe(true);
    expect(r.body.changes.find((c: { name: string }) => c.name === 'posts')).toMatchObject({ action: 'added' });
    expect(r.body.records).toEqual(expect.arrayContaining([{ collection: 'users', count: 2, files: 0 }, { collection: 'posts', count: 2, files: 0 }]));
    expect(r.body.notes.map((n: { item: string }) => n.item)).toContain('OAuth2');
    // nothing changed
    expect((await h.req('GET', '/api/collections/posts', { token: su })).status).toBe(404);
    expect(await schema('users')).toEqual(usersBefore);
    expect((await h.req('GET', '/api/collections/users/records', { token: su })).body.totalItems).toBe(0);
    expect((await upload(h, su, new Uint8Array(1), '?dryRun=maybe')).body).toEqual({ status: 400, message: 'Invalid dryRun parameter.', data: {} });
  });

  it('never drops a stored field: same-named fields keep their ids and values, fields the folder lacks are kept and noted', async () => {
    const users = await schema('users');
    const patched = await h.req('PATCH', '/api/collections/users', { token: su, body: { fields: [...users.fields, { name: 'nickname', type: 'text' }] } });
    expect(patched.status, patched.text).toBe(200);
    const ann = await signUpUser(h, 'ann@example.com', 'password123', { name: 'Ann', nickname: 'annie' });
    const plan = await upload(h, su, (await pocketBaseDb()).bytes, '?dryRun=true');
    const usersDiff = plan.body.changes.find((c: { name: string }) => c.name === 'users');
    expect(usersDiff.fields.removed).toEqual([]);
    expect(usersDiff.fields.added).toEqual([]);
    expect(plan.body.notes).toContainEqual({ collection: 'users', item: 'field nickname', reason: 'Kept: the PocketBase folder has no such field. Its values stay; records from the folder leave it empty.' });
    const r = await upload(h, su, (await pocketBaseDb()).bytes);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = await schema('users');
    const ids = (c: { fields: { id: string; name: string }[] }) => Object.fromEntries(c.fields.map((f) => [f.name, f.id]));
    expect(ids(after)).toMatchObject({ name: ids(users).name, avatar: ids(users).avatar, created: ids(users).created, updated: ids(users).updated, nickname: expect.any(String) });
    const stored = await h.req('GET', `/api/collections/users/records/${String(ann.id)}`, { token: su });
    expect(stored.body).toMatchObject({ name: 'Ann', nickname: 'annie' });
    expect(stored.body.created).toBe(ann.created);
  });

  it('flags the rules it opens, especially on auth collections; a new collection has none to flag', async () => {
    const bytes = await pbWith(`UPDATE _collections SET listRule = '', updateRule = 'id != ""' WHERE name = 'users'`);
    const r = await upload(h, su, bytes, '?dryRun=true');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const warnings = r.body.notes.filter((n: { warning?: boolean }) => n.warning === true);
    expect(warnings).toEqual([
      { collection: 'users', item: 'listRule', reason: 'The import opens the rule to anyone: "id = @request.auth.id" becomes "" (anyone).', warning: true },
      { collection: 'users', item: 'updateRule', reason: 'The import changes who may act on accounts; check it is not more open: "id = @request.auth.id" becomes "id != \\"\\"".', warning: true },
    ]);
  });

  it('warns when a stored file field holding files would keep only one (the folder has it single)', async () => {
    const users = await schema('users');
    const patched = await h.req('PATCH', '/api/collections/users', { token: su, body: { fields: [...users.fields, { name: 'gallery', type: 'file', maxSelect: 3 }] } });
    expect(patched.status, patched.text).toBe(200);
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' })) form.append(k, v);
    form.append('gallery', new File(['one'], 'one.txt'));
    form.append('gallery', new File(['two'], 'two.txt'));
    const created = await h.app.request('http://localhost:8090/api/collections/users/records', { method: 'POST', headers: { host: 'localhost:8090', authorization: `Bearer ${su}` }, body: form });
    expect(created.status, await created.clone().text()).toBe(200);
    const single = JSON.stringify({ hidden: false, id: 'file999', maxSelect: 1, maxSize: 0, mimeTypes: [], name: 'gallery', presentable: false, protected: false, required: false, system: false, thumbs: null, type: 'file' });
    const r = await upload(h, su, await pbWith(`UPDATE _collections SET fields = json_insert(fields, '$[#]', json('${single}')) WHERE name = 'users'`), '?dryRun=true');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.notes).toContainEqual({ collection: 'users', item: 'field gallery', reason: 'Records here hold files in it that the import deletes (the field goes, or keeps one file where it held several).', warning: true });
  });

  it('a field whose type differs from the stored one fails the import, naming it', async () => {
    const bytes = await pbWith(`UPDATE _collections SET fields = replace(fields, '"name":"name","pattern":"","presentable":false,"primaryKey":false,"required":false,"system":false,"type":"text"', '"name":"name","pattern":"","presentable":false,"primaryKey":false,"required":false,"system":false,"type":"number"') WHERE name = 'users'`);
    const r = await upload(h, su, bytes, '?dryRun=true');
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.message).toBe('Failed to import the submitted collections: collection "users": field "name" is of type "number" in the file and "text" here; rename one of them first (the import never changes the type of a stored field).');
  });
});

describe('the CLI prints the plan and asks before applying', () => {
  const root = mkdtempSync(join(tmpdir(), 'deskbase-pb-plan-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const postsIn = async (dir: string) => {
    const store = await openStore({ dir });
    try {
      return (await createCore(store)).registry.get('posts') !== undefined;
    } finally {
      await store.close();
    }
  };

  it('--dry-run and a "no" change nothing; without a terminal it needs --yes; "yes" applies', async () => {
    const pbData = join(root, 'pb_data');
    const dir = join(root, 'deskbase');
    await writePocketBaseFolder(pbData, await pocketBaseData());
    const lines: string[] = [];
    const log = (l: string) => void lines.push(l);
    expect(await runImport([pbData, '--dir', dir, '--dry-run'], log, null)).toBe(0);
    const out = lines.join('\n');
    expect(out).toContain(`The import into ${dir} would change (nothing is changed yet):`);
    expect(out).toMatch(/ {2}users: collection changed \(fields [^)]*~avatar[^)]*\), 2 records/);
    expect(out).toContain('  posts: collection added, 2 records');
    expect(out).toContain('Dry run: nothing was changed.');
    expect(await postsIn(dir)).toBe(false);

    lines.length = 0;
    expect(await runImport([pbData, '--dir', dir], log, null)).toBe(1);
    expect(lines.at(-1)).toBe('\nNothing was changed: run again with --yes to apply this plan.');
    expect(await postsIn(dir)).toBe(false);

    const asked: string[] = [];
    expect(await runImport([pbData, '--dir', dir], log, async (q) => (asked.push(q), 'n'))).toBe(1);
    expect(asked).toEqual(['\nApply these changes? [y/N] ']);
    expect(await postsIn(dir)).toBe(false);

    lines.length = 0;
    expect(await runImport([pbData, '--dir', dir], log, async () => 'yes')).toBe(0);
    expect(lines.join('\n')).toMatch(/Imported into .* in [\d.]+ s:\n(.|\n)*posts: collection added, 2 records/);
    expect(await postsIn(dir)).toBe(true);
  }, 60_000);
});
