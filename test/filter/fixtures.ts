// Shared fixtures of the resolver tests: a few collections (users auth, tags, posts, comments, news,
// notes) created as real sql.js tables following the storage conventions of core/fields/spec.ts, with
// a handful of rows, and a helper that runs a compiled filter and returns the matching ids.
import type { Database, SqlValue as SqlJsValue } from 'sql.js';
import { loadSqlJs } from '../../server/store/db.js';
import type { AuthInfo, Collection, Field, RequestInfo, SqlValue } from '../../server/model/types.js';
import { compileFilter, compileSort, type CompileContext } from '../../server/rules/compile.js';

export type FieldInput = Partial<Field> & { name: string; type: Field['type'] };

export function field(input: FieldInput): Field {
  return { id: `f_${input.name}`, system: false, hidden: false, presentable: false, ...input } as Field;
}

export function collection(name: string, type: Collection['type'], fields: FieldInput[], extra: Partial<Collection> = {}): Collection {
  const system: FieldInput[] = type === 'auth'
    ? [{ name: 'id', type: 'text' }, { name: 'password', type: 'password', hidden: true }, { name: 'email', type: 'email' },
      { name: 'emailVisibility', type: 'bool' }, { name: 'verified', type: 'bool' }]
    : [{ name: 'id', type: 'text' }];
  return {
    id: `c_${name}`, name, type, system: false, fields: [...system, ...fields].map(field), indexes: [],
    listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '', created: '', updated: '', ...extra,
  };
}

export const users = collection('users', 'auth', [
  { name: 'name', type: 'text' },
  { name: 'role', type: 'select', values: ['admin', 'user'], maxSelect: 1 } as FieldInput,
  { name: 'friends', type: 'relation', collectionId: 'c_users', maxSelect: 9 } as FieldInput,
], { listRule: 'id = @request.auth.id' });
export const tags = collection('tags', 'base', [{ name: 'name', type: 'text' }, { name: 'color', type: 'text' }]);
export const notes = collection('notes', 'base', [{ name: 'body', type: 'text' }], { listRule: null });
export const posts = collection('posts', 'base', [
  { name: 'title', type: 'text' },
  { name: 'author', type: 'relation', collectionId: 'c_users', maxSelect: 1 } as FieldInput,
  { name: 'tags', type: 'relation', collectionId: 'c_tags', maxSelect: 5 } as FieldInput,
  { name: 'labels', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 } as FieldInput,
  { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 } as FieldInput,
  { name: 'data', type: 'json' },
  { name: 'published', type: 'bool' },
  { name: 'views', type: 'number' },
  { name: 'created', type: 'date' },
  { name: 'secret', type: 'text', hidden: true },
  { name: 'location', type: 'geoPoint' },
  { name: 'note', type: 'relation', collectionId: 'c_notes', maxSelect: 1 } as FieldInput,
]);
export const comments = collection('comments', 'base', [
  { name: 'post', type: 'relation', collectionId: 'c_posts', maxSelect: 1 } as FieldInput,
  { name: 'message', type: 'text' },
  { name: 'author', type: 'relation', collectionId: 'c_users', maxSelect: 1 } as FieldInput,
]);
export const news = collection('news', 'base', [
  { name: 'category', type: 'text' },
  { name: 'author', type: 'relation', collectionId: 'c_users', maxSelect: 1 } as FieldInput,
]);

export const collections = [users, tags, notes, posts, comments, news];
export const lookup = (idOrName: string) => collections.find((c) => c.id === idOrName || c.name === idOrName);

/** The rows of each collection, in insertion order (their `_rowid_` order). */
export const ROWS: Record<string, Record<string, SqlValue>[]> = {
  users: [
    { id: 'u1', email: 'alice@x.io', emailVisibility: 1, verified: 1, name: 'Alice', role: 'admin', friends: '["u2"]', password: 'h1' },
    { id: 'u2', email: 'bob@x.io', emailVisibility: 0, verified: 0, name: 'Bob', role: 'user', friends: '[]', password: 'h2' },
    { id: 'u3', email: 'carol@x.io', emailVisibility: 1, verified: 1, name: '', role: '', friends: '["u1","u2"]', password: 'h3' },
  ],
  tags: [
    { id: 't1', name: 'red', color: 'warm' },
    { id: 't2', name: 'blue', color: 'cold' },
    { id: 't3', name: 'green', color: '' },
  ],
  notes: [{ id: 'n1', body: 'top secret' }],
  posts: [
    { id: 'p1', title: 'Hello world', author: 'u1', tags: '["t1","t2"]', labels: '["a","b"]', status: 'draft', data: '{"a":{"b":1},"items":[10,20]}', published: 1, views: 10, created: '2024-01-01T10:00:00.000Z', secret: 's1', location: '{"lon":2.35,"lat":48.85}', note: 'n1' },
    { id: 'p2', title: 'Second_post 100%', author: 'u2', tags: '["t1"]', labels: '["a"]', status: 'live', data: '{"a":{"b":2}}', published: 0, views: 0, created: '2024-06-01T10:00:00.000Z', secret: 's2', location: '{"lon":-0.12,"lat":51.5}', note: '' },
    { id: 'p3', title: '', author: '', tags: '[]', labels: '[]', status: '', data: null, published: 0, views: 5, created: '', secret: '', location: '{"lon":0,"lat":0}', note: '' },
    { id: 'p4', title: 'hello', author: 'u1', tags: '["t2","t3"]', labels: '["c"]', status: 'live', data: '"plain"', published: 1, views: 100, created: '2025-03-01T00:00:00.000Z', secret: 's4', location: '{"lon":2.30,"lat":48.80}', note: '' },
  ],
  comments: [
    { id: 'c1', post: 'p1', message: 'hi there', author: 'u2' },
    { id: 'c2', post: 'p1', message: 'bye', author: 'u1' },
    { id: 'c3', post: 'p2', message: 'hi', author: 'u1' },
  ],
  news: [
    { id: 'n1', category: 'draft', author: 'u1' },
    { id: 'n2', category: 'live', author: 'u2' },
  ],
};

function columnType(f: Field): string {
  if (f.name === 'id') return 'TEXT PRIMARY KEY NOT NULL';
  switch (f.type) {
    case 'number': return 'NUMERIC DEFAULT 0 NOT NULL';
    case 'bool': return 'BOOLEAN DEFAULT FALSE NOT NULL';
    case 'json': return 'JSON DEFAULT NULL';
    case 'geoPoint': return `JSON DEFAULT '{"lon":0,"lat":0}' NOT NULL`;
    case 'select':
    case 'relation':
    case 'file': return f.maxSelect > 1 ? `JSON DEFAULT '[]' NOT NULL` : `TEXT DEFAULT '' NOT NULL`;
    default: return `TEXT DEFAULT '' NOT NULL`;
  }
}

export async function openFixtureDb(): Promise<Database> {
  // the store's loader: native SQLite math functions (geoDistance), and the process's one sql.js module
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  for (const c of collections) createFixtureTable(db, c, ROWS[c.name]);
  return db;
}

/** A collection's table as core lays it out on SQLite, with `rows` inserted in order. */
export function createFixtureTable(db: Database, c: Collection, rows: readonly Record<string, SqlValue>[]): void {
  db.run(`CREATE TABLE "${c.name}" (${c.fields.map((f) => `"${f.name}" ${columnType(f)}`).join(', ')})`);
  for (const row of rows) {
    const keys = Object.keys(row);
    db.run(`INSERT INTO "${c.name}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`, keys.map((k) => row[k]));
  }
}

export function guest(overrides: Partial<RequestInfo> = {}): RequestInfo {
  return { auth: null, method: 'GET', context: 'default', body: {}, query: {}, headers: {}, ...overrides };
}

const superusers = collection('_superusers', 'auth', [], { id: '_superusers', listRule: null });

export function signedIn(db: Database, id: string, overrides: Partial<RequestInfo> = {}): RequestInfo {
  const auth: AuthInfo = id === 'root'
    ? { collection: superusers, record: { id: 'root', email: 'root@x.io' }, sessionId: 's' }
    : { collection: users, record: rowOf(db, 'users', id), sessionId: 's' };
  return guest({ auth, ...overrides });
}

export function rowOf(db: Database, table: string, id: string): Record<string, SqlValue> {
  const stmt = db.prepare(`SELECT * FROM "${table}" WHERE id = ?`);
  stmt.bind([id]);
  stmt.step();
  const row = stmt.getAsObject() as Record<string, SqlValue>;
  stmt.free();
  return row;
}

export function query(db: Database, sql: string, params: readonly SqlValue[] = []): SqlJsValue[][] {
  return db.exec(sql, params as SqlJsValue[])[0]?.values ?? [];
}

export type Options = Partial<CompileContext>;

export function context(options: Options = {}): CompileContext {
  return { collection: posts, alias: 'r', lookup, request: guest(), mode: 'rule', now: new Date('2024-06-15T12:30:45.123Z'), ...options };
}

/** The ids of `collection` (posts by default) the filter matches, sorted. */
export function matching(db: Database, src: string, options: Options = {}): string[] {
  const ctx = context(options);
  const { sql, params } = compileFilter(src, ctx);
  return query(db, `SELECT r.id FROM "${ctx.collection.name}" AS r WHERE ${sql} ORDER BY r.id`, params).map((row) => String(row[0]));
}

/** The ids of `collection` in the order of the sort. */
export function sorted(db: Database, src: string, options: Options = {}): string[] {
  const ctx = context(options);
  const { sql, params } = compileSort(src, ctx);
  return query(db, `SELECT r.id FROM "${ctx.collection.name}" AS r ORDER BY ${sql}`, params).map((row) => String(row[0]));
}
