// Sessions between two team-server nodes: a token's session ended by one node's write (the record
// deleted, its password changed from another session) is refused by the other node at its very next
// request, however many requests that node answered with it before; a superuser deleted on one node
// is refused by the other at once (settings, a batch, a file token) (core/session-store.ts keeps
// resolved sessions only on a store with table versions: the desktop's; a team node cannot see
// another node's writes in its own versions, so it must keep nothing).
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN, setUpAdmin } from '../support/sdk-server.js';
import { EXPIRED_SWEEP_BATCH } from '../../server/core/session-store.js';

let db: FreshDatabase;
let nodeA: RunningServer;
let nodeB: RunningServer;
let adminA: PocketBase;
let noteId = '';

const node = () => startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, openStore: () => openPostgresStore({ url: db.url, max: 4 }) });
const client = (server: RunningServer): PocketBase => {
  const pb = new PocketBase(server.url);
  pb.autoCancellation(false);
  return pb;
};
/** The status of a request on `server` with `token` (a view of the user's own record: the users' viewRule asks for the caller). */
const ownView = (server: RunningServer, token: string, id: string) =>
  fetch(`${server.url}/api/collections/users/records/${id}`, { headers: { authorization: token } }).then((r) => r.status);
/** A view of a note any signed-in caller may see (404 to anyone else). */
const noteView = (server: RunningServer, token: string) =>
  fetch(`${server.url}/api/collections/notes/records/${noteId}`, { headers: { authorization: token } }).then((r) => r.status);
const refresh = (server: RunningServer, token: string) =>
  fetch(`${server.url}/api/collections/users/auth-refresh`, { method: 'POST', headers: { authorization: token } }).then((r) => r.status);

describePostgres('sessions between two nodes', () => {
  beforeAll(async () => {
    db = await freshDatabase('sessions_nodes');
    nodeA = await node();
    await setUpAdmin(nodeA);
    nodeB = await node();
    adminA = client(nodeA);
    await adminA.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    await adminA.collections.update('users', { viewRule: 'id = @request.auth.id' });
    await adminA.collections.create({ name: 'notes', type: 'base', viewRule: "@request.auth.id != ''", fields: [{ name: 'title', type: 'text' }] });
    noteId = (await adminA.collection('notes').create({ title: 'for the signed in' })).id;
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await db?.drop();
  });

  it('a token used many times on one node is refused there at the next request once the other node deleted its record', async () => {
    const user = await adminA.collection('users').create({ email: 'gone@example.com', password: 'sessions nodes 1', passwordConfirm: 'sessions nodes 1' });
    const pb = client(nodeB);
    await pb.collection('users').authWithPassword('gone@example.com', 'sessions nodes 1');
    const token = pb.authStore.token;
    for (let i = 0; i < 5; i++) expect([await ownView(nodeB, token, user.id), await noteView(nodeB, token)]).toEqual([200, 200]);
    await adminA.collection('users').delete(user.id);
    expect(await noteView(nodeB, token)).toBe(404);
    expect(await refresh(nodeB, token)).toBe(401);
  });

  it('a password changed on one node from another session ends this session on the other node at its next request', async () => {
    const user = await adminA.collection('users').create({ email: 'moved@example.com', password: 'sessions nodes 2', passwordConfirm: 'sessions nodes 2' });
    const onB = client(nodeB);
    await onB.collection('users').authWithPassword('moved@example.com', 'sessions nodes 2');
    const onA = client(nodeA);
    await onA.collection('users').authWithPassword('moved@example.com', 'sessions nodes 2');
    const token = onB.authStore.token;
    for (let i = 0; i < 5; i++) expect([await ownView(nodeB, token, user.id), await noteView(nodeB, token)]).toEqual([200, 200]);
    await onA.collection('users').update(user.id, { oldPassword: 'sessions nodes 2', password: 'sessions nodes 3', passwordConfirm: 'sessions nodes 3' });
    expect(await noteView(nodeB, token)).toBe(404);
    expect(await ownView(nodeB, token, user.id)).toBe(404);
    expect(await refresh(nodeB, token)).toBe(401);
    // the session that changed it goes on, on either node
    expect(await ownView(nodeA, onA.authStore.token, user.id)).toBe(200);
    expect(await ownView(nodeB, onA.authStore.token, user.id)).toBe(200);
  });

  it('a superuser deleted on one node: its token is refused by the other at its next request (settings, a batch, a file token)', async () => {
    const second = await adminA.collection('_superusers').create({ email: 'second@example.com', password: 'sessions nodes 4', passwordConfirm: 'sessions nodes 4' });
    const onB = client(nodeB);
    await onB.collection('_superusers').authWithPassword('second@example.com', 'sessions nodes 4');
    const token = onB.authStore.token;
    const settings = () => fetch(`${nodeB.url}/api/settings`, { headers: { authorization: token } }).then((r) => r.status);
    const batch = () => fetch(`${nodeB.url}/api/batch`, {
      method: 'POST', headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ method: 'POST', url: '/api/collections/_superusers/records', body: { email: 'third@example.com', password: 'sessions nodes 5', passwordConfirm: 'sessions nodes 5' } }] }),
    }).then((r) => r.status);
    const fileToken = () => fetch(`${nodeB.url}/api/files/token`, { method: 'POST', headers: { authorization: token } }).then(async (r) => ({ status: r.status, token: ((await r.json()) as { token?: string }).token }));
    expect(await settings()).toBe(200);
    expect((await fileToken()).token).not.toBe('');
    await adminA.collection('_superusers').delete(second.id);
    expect(await settings()).toBe(401);
    expect(await batch()).not.toBe(200);
    expect(await adminA.collection('_superusers').getFullList({ filter: "email = 'third@example.com'" })).toEqual([]);
    expect((await fileToken()).token ?? '').toBe('');
  });

  it('a backlog of expired sessions goes at most a batch per sign-in on PostgreSQL too (the sweep\'s DELETE ... IN (SELECT ... LIMIT ?))', async () => {
    const user = await adminA.collection('users').create({ email: 'backlog@example.com', password: 'sessions nodes 1', passwordConfirm: 'sessions nodes 1' });
    const { store, sessions, registry } = nodeA.core;
    const users = registry.get('users')!;
    const at = Date.now() + 10 * 60_000; // past any sweep an earlier sign-in on this node made
    const expired = () => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM "_sessions" WHERE "expires" < ?', [new Date(at).toISOString()]).then((r) => Number(r?.n));
    await store.write(async (tx) => {
      for (let i = 0; i < EXPIRED_SWEEP_BATCH + 200; i++) {
        await tx.run(
          'INSERT INTO "_sessions" ("id","tokenHash","collectionId","recordId","created","expires","userAgent") VALUES (?,?,?,?,?,?,?)',
          [`backlog${String(i).padStart(8, '0')}`, String(i).padStart(64, '0'), users.id, user.id, new Date(at - 8 * 86_400_000).toISOString(), new Date(at - 3_600_000).toISOString(), 'test'],
        );
      }
    });
    const before = await expired();
    expect(before).toBeGreaterThanOrEqual(EXPIRED_SWEEP_BATCH + 200);
    await store.write((tx) => sessions.start(tx, users.id, user.id, 'test', at));
    expect(await expired()).toBe(before - EXPIRED_SWEEP_BATCH);
    await store.write((tx) => sessions.start(tx, users.id, user.id, 'test', at + 1_000));
    expect(await expired()).toBe(0);
  });
});
