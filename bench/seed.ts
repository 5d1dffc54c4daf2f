// Seeds a running Deskbase for the bench (in the server's own process): the first superuser and the
// `posts` collection over HTTP, then users and posts inserted straight through the store in large
// transactions, with the column conventions of the record write funnel (zero values, stored values,
// through each field's spec: core/fields/index.ts is a path every compared commit has).
import type { RunningServer } from '../server/index.js';
import { isoNow, newId } from '../server/core/ids.js';
import { randomBytes, scryptSync } from 'node:crypto';
import { specFor } from '../server/core/fields/index.js';
import { ident } from '../server/filter/sql.js';
import type { Collection } from '../server/model/types.js';
import { FILTER_WORD, postContent, prng, TAGS } from './data.js';
import type { SeedInfo } from './protocol.js';

export const ADMIN = { email: 'admin@bench.local', password: 'bench-admin-password' };
const USER_PASSWORD = 'bench-user-password';
const BATCH = 5000;
const VIEW_IDS = 1000;

async function api(server: RunningServer, method: string, path: string, body?: unknown, token?: string): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

async function signIn(server: RunningServer, collection: string, identity: string, password: string): Promise<string> {
  const out = (await api(server, 'POST', `/api/collections/${collection}/auth-with-password`, { identity, password })) as { token: string };
  return out.token;
}

/**
 * The posts schema of the issue: public list/view, create for signed-in users, and only the indexes
 * Deskbase makes by itself (users rarely add one).
 */
function postsDefinition(usersId: string): Record<string, unknown> {
  return {
    name: 'posts',
    fields: [
      { name: 'title', type: 'text', required: true, max: 200 },
      { name: 'body', type: 'text' },
      { name: 'published', type: 'bool' },
      { name: 'tags', type: 'select', maxSelect: 3, values: TAGS },
      { name: 'author', type: 'relation', collectionId: usersId, maxSelect: 1 },
      { name: 'coauthors', type: 'relation', collectionId: usersId, maxSelect: 3 },
      { id: 'bench_created', name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
      { id: 'bench_updated', name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
    ],
    listRule: '',
    viewRule: '',
    createRule: '@request.auth.id != ""',
  };
}

/** Inserts rows given as API values, filling every other field with its zero value. */
async function insertRows(server: RunningServer, c: Collection, rows: Record<string, unknown>[]): Promise<void> {
  const cols = c.fields.map((f) => ident(f.name));
  const sql = `INSERT INTO ${ident(c.name)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += BATCH) {
    const part = rows.slice(i, i + BATCH);
    // a synchronous function, its statements' answers awaited after it: this file also seeds older
    // commits (bench/ab.ts), whose store took only synchronous write functions
    const ran: unknown[] = [];
    await server.core.store.write((tx) => {
      for (const row of part) {
        ran.push(tx.run(sql, c.fields.map((f) => (f.type === 'password' ? String(row[f.name]) : specFor(f).toStored(row[f.name] ?? specFor(f).zero(f), f)))));
      }
    });
    await Promise.all(ran);
  }
}

export async function seed(server: RunningServer, posts: number, users: number): Promise<SeedInfo> {
  const token = await server.setupToken();
  if (token === null) throw new Error('the bench needs a fresh data folder (no setup token)');
  await api(server, 'POST', '/api/setup', { token, ...ADMIN });
  const su = await signIn(server, '_superusers', ADMIN.email, ADMIN.password);
  // expand=author shows the author to guests only if users are viewable
  await api(server, 'PATCH', '/api/collections/users', { viewRule: '' }, su);
  const collection = (name: string): Collection => {
    const c = server.core.registry.get(name);
    if (!c) throw new Error(`no collection ${name}`);
    return c;
  };
  const usersCollection = collection('users');
  await api(server, 'POST', '/api/collections', postsDefinition(usersCollection.id), su);
  const postsCollection = collection('posts');

  const hash = scryptHash(USER_PASSWORD); // one hash for all: scrypt per user would take seconds
  const now = Date.now();
  const userRows = Array.from({ length: users }, (_, i) => ({
    id: newId(), email: `user${i}@bench.local`, password: hash, name: `User ${i}`, created: isoNow(now), updated: isoNow(now),
  }));
  await insertRows(server, usersCollection, userRows);

  const rand = prng(42);
  const started = performance.now();
  const postRows: Record<string, unknown>[] = [];
  for (let i = 0; i < posts; i++) {
    const at = isoNow(now - (posts - i) * 1000); // one second apart, oldest first
    const coauthors = [userRows[(i * 7 + 1) % users].id, userRows[(i * 13 + 2) % users].id];
    postRows.push({ id: newId(), ...postContent(rand), author: userRows[i % users].id, coauthors, created: at, updated: at });
  }
  await insertRows(server, postsCollection, postRows);
  const seedMs = performance.now() - started;
  await server.core.store.checkpoint(); // the folder then opens from a snapshot, not a long journal

  const step = Math.max(1, Math.floor(posts / VIEW_IDS));
  const viewIds = postRows.filter((_, i) => i % step === 0).slice(0, VIEW_IDS).map((r) => String(r.id));
  return {
    url: server.url,
    postsCount: posts,
    viewIds,
    userIds: userRows.map((r) => r.id),
    userEmails: userRows.map((r) => r.email),
    userPassword: USER_PASSWORD,
    userToken: await signIn(server, 'users', userRows[0].email, USER_PASSWORD),
    filterWord: FILTER_WORD,
    seedMs,
  };
}

/**
 * A stored password hash in the format every compared commit checks (core/passwords.ts: scrypt, N=16384,
 * r=8, p=1, 16-byte salt, 64-byte key), made here so the seed needs no server module whose API changes.
 */
function scryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}
