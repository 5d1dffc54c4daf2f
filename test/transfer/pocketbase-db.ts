// A PocketBase (v0.23+) data.db built here: `_collections` with PocketBase's own columns (fields,
// indexes and options as JSON, core/collection_model.go), one table per collection as PocketBase lays
// them out (datetimes `YYYY-MM-DD HH:MM:SS.mmmZ`, lists as JSON text, bcrypt password hashes, tokenKey).
import bcrypt from 'bcryptjs';
import { loadSqlJs } from '../../server/store/db.js';
import { pbPosts, pbUsers } from './pocketbase-fixtures.js';

const COLLECTIONS_TABLE = `CREATE TABLE \`_collections\` (
  \`id\` TEXT PRIMARY KEY, \`system\` BOOLEAN DEFAULT FALSE NOT NULL, \`type\` TEXT DEFAULT "base" NOT NULL,
  \`name\` TEXT UNIQUE NOT NULL, "fields" JSON DEFAULT "[]" NOT NULL, \`listRule\` TEXT DEFAULT NULL,
  \`viewRule\` TEXT DEFAULT NULL, \`createRule\` TEXT DEFAULT NULL, \`updateRule\` TEXT DEFAULT NULL,
  \`deleteRule\` TEXT DEFAULT NULL, \`options\` JSON DEFAULT "{}" NOT NULL, \`created\` TEXT DEFAULT "" NOT NULL,
  \`updated\` TEXT DEFAULT "" NOT NULL, \`indexes\` JSON DEFAULT "[]" NOT NULL)`;

const pbSuperusers = {
  id: 'pbc_3142635823', name: '_superusers', type: 'auth', system: true, authRule: '', manageRule: null,
  passwordAuth: { enabled: true, identityFields: ['email'] },
  fields: pbUsers.fields.filter((f) => !['name', 'avatar'].includes(f.name)),
  indexes: [], listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null,
};

export interface PocketBaseData {
  bytes: Uint8Array;
  /** The plain passwords of the records it holds. */
  passwords: Record<string, string>;
}

/** bcrypt at cost 4 keeps tests fast; PocketBase's default is 10 (the check runs on a worker either way). */
export async function pocketBaseDb(): Promise<PocketBaseData> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run(COLLECTIONS_TABLE);
  const OPTION_KEYS = ['authRule', 'manageRule', 'authAlert', 'oauth2', 'passwordAuth', 'mfa', 'otp', 'authToken'];
  for (const c of [pbSuperusers, pbUsers, pbPosts, { id: 'pbc_2281828961', name: '_externalAuths', type: 'base', system: true, fields: [], indexes: [] }]) {
    const options = Object.fromEntries(Object.entries(c).filter(([k]) => OPTION_KEYS.includes(k)));
    const rules = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'].map((k) => (c as Record<string, unknown>)[k] ?? null);
    db.run('INSERT INTO _collections (id, system, type, name, fields, listRule, viewRule, createRule, updateRule, deleteRule, options, created, updated, indexes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      [c.id, c.system ? 1 : 0, c.type, c.name, JSON.stringify(c.fields), ...(rules as (string | null)[]), JSON.stringify(options), '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', JSON.stringify(c.indexes)]);
  }
  const auth = 'id TEXT PRIMARY KEY, password TEXT, tokenKey TEXT, email TEXT, emailVisibility BOOLEAN, verified BOOLEAN, created TEXT, updated TEXT';
  db.run(`CREATE TABLE _superusers (${auth})`);
  db.run(`CREATE TABLE users (${auth}, name TEXT, avatar TEXT)`);
  db.run('CREATE TABLE posts (id TEXT PRIMARY KEY, title TEXT, author TEXT, status TEXT, related JSON, cover TEXT, attachments JSON, views NUMERIC, created TEXT, updated TEXT)');
  db.run('CREATE TABLE _externalAuths (id TEXT PRIMARY KEY, provider TEXT)');
  db.run(`INSERT INTO _externalAuths VALUES ('ea1', 'google')`);
  const passwords = { 'ada@example.com': 'analytical engine', 'bob@example.com': 'correct battery', 'root@example.com': 'superuser secret' };
  const hash = (p: string) => bcrypt.hashSync(p, 4);
  db.run('INSERT INTO _superusers VALUES (?,?,?,?,?,?,?,?)', ['pbsuperuser0001', hash(passwords['root@example.com']), 'k'.repeat(50), 'root@example.com', 0, 1, '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z']);
  db.run('INSERT INTO users VALUES (?,?,?,?,?,?,?,?,?,?)', ['adaada000000001', hash(passwords['ada@example.com']), 'k'.repeat(50), 'ada@example.com', 1, 1, '2023-05-06 07:08:09.123Z', '2023-05-06 07:08:09.123Z', 'Ada', 'ada_q7w3e5r8t1.png']);
  db.run('INSERT INTO users VALUES (?,?,?,?,?,?,?,?,?,?)', ['bobbob000000002', hash(passwords['bob@example.com']), 'k'.repeat(50), 'bob@example.com', 0, 0, '2023-05-07 07:08:09.123Z', '2023-05-07 07:08:09.123Z', 'Bob', '']);
  db.run('INSERT INTO posts VALUES (?,?,?,?,?,?,?,?,?,?)', ['post00000000001', 'First', 'adaada000000001', 'published', '["post00000000002"]', 'cover_k3l9p0qz1a.png', '["notes_8fj2k1l0qa.txt","photo_2b9x0c7v1m.jpg"]', 10, '2023-06-01 10:00:00.000Z', '2023-06-02 10:00:00.000Z']);
  db.run('INSERT INTO posts VALUES (?,?,?,?,?,?,?,?,?,?)', ['post00000000002', 'Second', '', 'draft', '[]', '', '[]', 0, '2023-06-03 10:00:00.000Z', '2023-06-03 10:00:00.000Z']);
  const bytes = db.export();
  db.close();
  return { bytes, passwords };
}
