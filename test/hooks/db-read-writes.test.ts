// A hook's `$app.db()` read (`all`/`one`) whose statement writes (a DELETE ... RETURNING, as dbx's
// All runs whatever it is given): the write must be seen by the very next request of a kept session
// (core/session-store.ts keeps sessions across writes to other tables), survive a restart (it is
// journaled), and move the store's version (read-cache.ts drops what it kept). On the suite's engine
// (test/support/test-store.ts): the desktop's data folder, or a database of the run's PostgreSQL that
// each restart opens again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { TEST_ENGINE } from '../support/test-store.js';
import { hooksFolder } from '../hooks/support.js';

const hooksDir = hooksFolder({
  'end.pb.js': `
routerAdd("POST", "/api/end-sessions/{id}", (e) => {
  const ended = arrayOf(new DynamicModel({ id: "" }));
  $app.db().newQuery("DELETE FROM {{_sessions}} WHERE [[recordId]] = {:id} RETURNING [[id]]").bind({ id: e.request.pathValue("id") }).all(ended);
  return e.json(200, { ended: ended.length });
});

routerAdd("POST", "/api/arm", (e) => {
  // a schema statement through all(): it changes no row (SQLite's change count does not move)
  const sql = e.request.url.query().get("engine") === "postgres"
    ? ["CREATE FUNCTION end_sessions() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN DELETE FROM _sessions; RETURN NULL; END'",
       "CREATE TRIGGER end_sessions AFTER INSERT ON notes FOR EACH ROW WHEN (NEW.title = 'end them') EXECUTE FUNCTION end_sessions()"]
    : ["CREATE TRIGGER end_sessions AFTER INSERT ON notes WHEN NEW.title = 'end them' BEGIN DELETE FROM _sessions; END"];
  for (const q of sql) $app.db().newQuery(q).all(arrayOf(new DynamicModel({})));
  return e.json(200, {});
});

onRecordCreate((e) => {
  e.next();
  if (e.record.getString("title") === "endless inside") {
    $app.db().newQuery("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c").all(arrayOf(new DynamicModel({ x: 0 })));
  }
  const sql = { "commit inside": "COMMIT", "savepoint inside": "SAVEPOINT s", "rollback to": "ROLLBACK", "release": "RELEASE s" }[e.record.getString("title")];
  if (sql) $app.db().newQuery(sql).execute();
}, "notes");

routerAdd("POST", "/api/drop-note/{id}", (e) => {
  const row = new DynamicModel({ id: "" });
  $app.db().newQuery("DELETE FROM {{notes}} WHERE [[id]] = {:id} RETURNING [[id]]").bind({ id: e.request.pathValue("id") }).one(row);
  return e.json(200, { dropped: row.id });
});
`,
});
const dir = mkdtempSync(join(tmpdir(), 'deskbase-hook-read-writes-'));
let sdk: SdkServer;
let reopened: RunningServer | undefined;
let token = '';
let userId = '';
let pg: FreshDatabase | null = null;
/** Where a server (and each restart) keeps its data: the folder, or the same PostgreSQL database again. */
const onEngine = (): Partial<ServerOptions> => (pg === null ? {} : { openStore: () => openPostgresStore({ url: pg!.url, max: 4, dir }) });

beforeAll(async () => {
  if (TEST_ENGINE === 'postgres') pg = await freshDatabase('hook-read-writes');
  sdk = await startSdkServer({ dir, hooksDir, ...onEngine() });
  expect(sdk.server.core.store.dialect === 'postgres').toBe(TEST_ENGINE === 'postgres'); // the engine really is the project's
  await sdk.admin.collections.create({ name: 'notes', type: 'base', createRule: "@request.auth.id != ''", listRule: '', fields: [{ name: 'title', type: 'text' }] });
  await sdk.admin.collection('users').create({ email: 'u@example.com', password: 'hook read writes 1', passwordConfirm: 'hook read writes 1' });
  const pb = sdk.client();
  await pb.collection('users').authWithPassword('u@example.com', 'hook read writes 1');
  token = pb.authStore.token;
  userId = pb.authStore.record!.id;
});
afterAll(async () => {
  await sdk?.server.close();
  await reopened?.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function create(title: string, url = sdk.server.url): Promise<number> {
  const r = await fetch(`${url}/api/collections/notes/records`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify({ title }),
  });
  return r.status;
}

describe("a hook's $app.db() transaction statement", () => {
  it('is refused with a 400 naming it, and the write around it rolls back whole', async () => {
    for (const title of ['commit inside', 'savepoint inside', 'rollback to', 'release']) {
      const r = await fetch(`${sdk.server.url}/api/collections/notes/records`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify({ title }),
      });
      expect(r.status, title).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(/runInTransaction/);
      expect((await sdk.admin.collection('notes').getList(1, 1, { filter: `title = "${title}"` })).totalItems, title).toBe(0);
    }
    expect(await create('the store writes on')).toBe(200);
  });
});

describe("a hook's $app.db() read inside a write", () => {
  it("is stopped at the write's query budget (its rows counted), the server answering on", async () => {
    const r = await fetch(`${sdk.server.url}/api/collections/notes/records`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify({ title: 'endless inside' }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/database time/);
    expect(await create('the store writes on')).toBe(200);
  });
});

describe("a hook's $app.db() read that writes", () => {
  it('moves the store: a list answered before is not answered again from memory', async () => {
    const note = await sdk.admin.collection('notes').create({ title: 'to drop' });
    const list = async () => (await (await fetch(`${sdk.server.url}/api/collections/notes/records?perPage=500`)).json() as { items: { id: string }[] }).items.map((i) => i.id);
    for (let i = 0; i < 3; i++) expect(await list()).toContain(note.id); // asked twice: kept (read-cache.ts)
    const r = await fetch(`${sdk.server.url}/api/drop-note/${note.id}`, { method: 'POST' });
    expect(await r.json()).toEqual({ dropped: note.id });
    expect(await list()).not.toContain(note.id);
  });

  it('ends the session for the next request, and for good', async () => {
    expect(await create('kept session')).toBe(200);
    expect(await create('kept session again')).toBe(200);
    const r = await fetch(`${sdk.server.url}/api/end-sessions/${userId}`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ended: 1 });
    expect(await create('after the end')).toBe(400);
    await sdk.server.close();
    reopened = await startServer({ dir, hooksDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() });
    expect(await create('after a restart', reopened.url)).toBe(400);
  });

  it('a schema statement through all() is journaled, and a trigger it makes is seen by the sessions kept', async () => {
    const url = reopened!.url;
    const pb = new PocketBase(url);
    await pb.collection('users').authWithPassword('u@example.com', 'hook read writes 1');
    token = pb.authStore.token;
    expect((await fetch(`${url}/api/arm?engine=${TEST_ENGINE}`, { method: 'POST' })).status).toBe(200);
    expect(await create('kept session', url)).toBe(200);
    expect(await create('end them', url)).toBe(200); // the trigger ends every session
    expect(await create('after the trigger', url)).toBe(400);
    await reopened!.close();
    reopened = await startServer({ dir, hooksDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() });
    const again = new PocketBase(reopened.url);
    await again.collection('users').authWithPassword('u@example.com', 'hook read writes 1');
    token = again.authStore.token;
    expect(await create('end them', reopened.url)).toBe(200); // the trigger is still there after a restart
    expect(await create('after the trigger', reopened.url)).toBe(400);
  });
});
