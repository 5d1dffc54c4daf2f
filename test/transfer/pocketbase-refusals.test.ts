// What the PocketBase import refuses of a folder's records (issue 21, items 6, 8 and 9): ids that are
// not record ids here, an auth id another auth collection already uses (the round-1 takeover: sign in
// as the imported record, PATCH the other), stored file names that are not plain path segments, and
// password hashes past the bounds a sign-in runs. Each is named in the 400, and nothing changes.
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../server/store/db.js';
import { eachSuperuser, type Harness } from '../support/harness.js';
import { pocketBaseDb } from './pocketbase-db.js';

async function upload(h: Harness, token: string, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const r = await h.app.request('http://localhost:8090/api/import/pocketbase', {
    method: 'POST', headers: { host: 'localhost:8090', authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: new Blob([new Uint8Array(bytes)]),
  });
  return { status: r.status, body: JSON.parse(await r.text()) };
}

/** PocketBase's test data.db with `sql` run on it. */
async function pbWith(...sql: [string, unknown[]?][]): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database((await pocketBaseDb()).bytes);
  for (const [text, params] of sql) db.run(text, params as never);
  const bytes = db.export();
  db.close();
  return bytes;
}

const userRow = (id: string, email: string, hash = bcrypt.hashSync('password123', 4)) =>
  ['INSERT INTO users VALUES (?,?,?,?,?,?,?,?,?,?)', [id, hash, 'k'.repeat(50), email, 0, 1, '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', 'X', '']] as [string, unknown[]];

describe('the PocketBase import checks ids, file names and hashes as every create does', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const collections = async () => (await h.req('GET', '/api/collections?perPage=200', { token: su })).body.items.map((c: { name: string }) => c.name).sort();

  it('an auth id another auth collection uses is refused, named, and nothing is imported', async () => {
    const members = await h.req('POST', '/api/collections', { token: su, body: { name: 'members', type: 'auth', fields: [] } });
    expect(members.status, members.text).toBe(200);
    const victim = await h.req('POST', '/api/collections/members/records', { token: su, body: { id: 'victim000000001', email: 'victim@example.com', password: 'password123', passwordConfirm: 'password123' } });
    expect(victim.status, victim.text).toBe(200);
    const before = await collections();
    const r = await upload(h, su, await pbWith(userRow('victim000000001', 'mallory@example.com')));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.message).toBe('Failed to import the records: 1 record(s) refused, nothing was changed: users "victim000000001": a record of another auth collection has the same id (auth ids are unique across auth collections).');
    expect(r.body.data.records.users['3'].code).toBe('validation_invalid_record');
    expect(await collections()).toEqual(before);
    expect((await h.req('POST', '/api/collections/users/auth-with-password', { body: { identity: 'mallory@example.com', password: 'password123' } })).status).toBe(400);
  });

  it('ids that are not record ids, file names with .., and unbounded hashes are each named', async () => {
    const r = await upload(h, su, await pbWith(
      [`INSERT INTO posts (id, title, created, updated) VALUES ('../../../../tmp', 'x', '', '')`],
      [`INSERT INTO posts (id, title, cover, created, updated) VALUES ('post00000000009', 'x', '../../../evil.png', '', '')`],
      [`INSERT INTO posts (id, title, attachments, created, updated) VALUES ('post00000000010', 'x', '["ok_1234567890.txt", ".."]', '', '')`],
      userRow('slowslow0000001', 'slow@example.com', bcrypt.hashSync('x', 4).replace('$04$', '$31$')),
      userRow('scryptscrypt001', 'scrypt@example.com', `scrypt$16384$8$1073741824$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(64).toString('base64')}`),
    ));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    const message = r.body.message as string;
    expect(message).toMatch(/^Failed to import the records: 5 record\(s\) refused, nothing was changed: /);
    expect(message).toContain('users "slowslow0000001": its password hash cannot be used here: bcrypt cost 31 is outside 4-13');
    expect(message).toContain('users "scryptscrypt001": its password hash cannot be used here: scrypt parameters outside the limits');
    expect(message).toContain('posts "../../../../tmp": the id is not 15 characters from a-z0-9');
    expect(message).toContain('posts "post00000000009": the file name "../../../evil.png" in "cover" is not a plain file name');
    expect(message).toContain('posts "post00000000010": the file name ".." in "attachments" is not a plain file name');
    expect((await collections()).includes('posts')).toBe(false);
  });
});
