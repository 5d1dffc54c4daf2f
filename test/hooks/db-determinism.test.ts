// A hook's `$app.db()` and a JS migration writing with what SQLite makes up as it runs (random(),
// randomblob(), datetime('now'), CURRENT_TIMESTAMP): on the desktop the journal replays statements, so
// such a write is refused with a 400 naming it (store/determinism.ts) and the data folder reopened holds
// what memory held; a SELECT of them, bound into the write, is kept as it was. On PostgreSQL the
// statement runs once in the database: it is stored, and the same value is there after a restart. Real
// server, real socket, the official SDK, a real data folder (or the same PostgreSQL database) reopened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { failure, startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { TEST_ENGINE } from '../support/test-store.js';
import { hooksFolder } from './support.js';

const PG = TEST_ENGINE === 'postgres';
/** Each engine's spelling of the four (PostgreSQL has no randomblob or datetime('now')). */
const MADE_UP: Record<string, string> = PG
  ? { random: 'random()', randomblob: "md5(random()::text)", now: 'now()', stamp: 'CURRENT_TIMESTAMP' }
  : { random: 'random()', randomblob: 'hex(randomblob(16))', now: "datetime('now')", stamp: 'CURRENT_TIMESTAMP' };
const NAMES: Record<string, string> = {
  random: 'random()', randomblob: 'randomblob()', now: "'now' (a date function's 'now', CURRENT_TIME, CURRENT_DATE or CURRENT_TIMESTAMP)",
};
NAMES.stamp = NAMES.now;
const refusal = (name: string) => `A statement that writes cannot use ${name}: its value is made up as the statement runs and the journal replays statements, so it would differ after a restart. Bind a value made in JavaScript instead (a SELECT may use it).`;

const hooksDir = hooksFolder({
  'made-up.pb.js': `
const MADE_UP = ${JSON.stringify(MADE_UP)};
// on its own (a transaction of its own) and inside a record's write
routerAdd("POST", "/api/made-up/{kind}", (e) => {
  const kind = e.request.pathValue("kind");
  $app.db().newQuery("INSERT INTO {{notes}} ([[id]], [[title]], [[value]]) VALUES ({:id}, {:kind}, CAST(" + MADE_UP[kind] + " AS TEXT))")
    .bind({ id: $security.randomStringWithAlphabet(15, "abcdefghijklmnopqrstuvwxyz0123456789"), kind: "route " + kind }).execute();
  return e.json(200, {});
});

// a SELECT of them, its answer bound into the write: replayed as it was
routerAdd("POST", "/api/made-up-read", (e) => {
  const row = new DynamicModel({ r: "", n: "" });
  $app.db().newQuery("SELECT CAST(" + MADE_UP.random + " AS TEXT) AS r, CAST(" + MADE_UP.now + " AS TEXT) AS n").one(row);
  $app.db().newQuery("INSERT INTO {{notes}} ([[id]], [[title]], [[value]]) VALUES ({:id}, 'read', {:v})")
    .bind({ id: $security.randomStringWithAlphabet(15, "abcdefghijklmnopqrstuvwxyz0123456789"), v: row.r + " " + row.n }).execute();
  return e.json(200, {});
});

onRecordCreate((e) => {
  const kind = e.record.getString("title");
  if (!MADE_UP[kind]) return e.next();
  e.next();
  $app.db().newQuery("UPDATE {{notes}} SET [[value]] = CAST(" + MADE_UP[kind] + " AS TEXT) WHERE [[id]] = {:id}").bind({ id: e.record.id }).execute();
}, "notes");

// a refusal the hook catches: the record's write is refused whole all the same (on the desktop)
onRecordCreate((e) => {
  if (e.record.getString("title") !== "caught") return e.next();
  e.next();
  try {
    $app.db().newQuery("UPDATE {{notes}} SET [[value]] = CAST(" + MADE_UP.now + " AS TEXT) WHERE [[id]] = {:id}").bind({ id: e.record.id }).execute();
  } catch (err) {
    e.record.set("value", "caught");
  }
}, "notes");
`,
});

const dir = mkdtempSync(join(tmpdir(), 'deskbase-hook-made-up-'));
let sdk: SdkServer;
let reopened: RunningServer | undefined;
let pg: FreshDatabase | null = null;
const onEngine = (): Partial<ServerOptions> => (pg === null ? {} : { openStore: () => openPostgresStore({ url: pg!.url, max: 4, dir }) });

beforeAll(async () => {
  if (PG) pg = await freshDatabase('hook-made-up');
  sdk = await startSdkServer({ dir, hooksDir, ...onEngine() });
  expect(sdk.server.core.store.dialect === 'postgres').toBe(PG);
  await sdk.admin.collections.create({ name: 'notes', type: 'base', createRule: '', listRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'value', type: 'text' }] });
});
afterAll(async () => {
  await sdk?.server.close();
  await reopened?.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const notes = async (url: string) =>
  ((await (await fetch(`${url}/api/collections/notes/records?perPage=500&sort=title,id`)).json()) as { items: { id: string; title: string; value: string }[] }).items
    .map(({ id, title, value }) => ({ id, title, value }));

describe("a hook's $app.db() writing what SQLite makes up", () => {
  it(PG ? 'runs once in PostgreSQL: stored, the same after a restart' : 'is refused with a 400 naming it; a SELECT of it bound into the write is kept; the reopened folder holds what memory held', async () => {
    const url = sdk.server.url;
    for (const kind of Object.keys(MADE_UP)) {
      const r = await fetch(`${url}/api/made-up/${kind}`, { method: 'POST' });
      const inRecord = await sdk.client().collection('notes').create({ title: kind }).then(() => null, (err: unknown) => err);
      if (PG) {
        expect(r.status, kind).toBe(200);
        expect(inRecord, kind).toBeNull();
      } else {
        expect(r.status, kind).toBe(400);
        expect(await r.json(), kind).toEqual({ status: 400, message: refusal(NAMES[kind]), data: {} });
        expect(inRecord, kind).not.toBeNull();
        expect((await failure(Promise.reject(inRecord))).response, kind).toMatchObject({ status: 400, message: refusal(NAMES[kind]) });
      }
    }
    expect((await fetch(`${url}/api/made-up-read`, { method: 'POST' })).status).toBe(200);
    const caught = await sdk.client().collection('notes').create({ title: 'caught' }).then(() => 200, (err: { status: number }) => err.status);
    expect(caught).toBe(PG ? 200 : 400);

    const before = await notes(url);
    const titles = before.map((n) => n.title);
    if (PG) {
      expect(titles).toEqual(['caught', 'now', 'random', 'randomblob', 'read', 'route now', 'route random', 'route randomblob', 'route stamp', 'stamp']);
      expect(before.every((n) => n.value !== '')).toBe(true);
    } else {
      expect(titles).toEqual(['read']);
      expect(before[0].value).toMatch(/^-?\d+ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    }
    await sdk.server.close();
    reopened = await startServer({ dir, hooksDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() });
    expect(await notes(reopened.url)).toEqual(before);
  });
});

describe('a JS migration writing what SQLite makes up', () => {
  it(PG ? 'runs once in PostgreSQL: applied, the same value after a restart' : 'fails its file with the refusal naming it; the folder reopened holds what memory held', async () => {
    const url = reopened!.url;
    const before = await notes(url);
    await reopened!.close();
    reopened = undefined;
    const migrationsDir = hooksFolder({
      '1700000000_made_up.js': `migrate((app) => {
  app.db().newQuery("INSERT INTO {{notes}} ([[id]], [[title]], [[value]]) VALUES ('migratedaaaaaaa', 'migrated', CAST(${MADE_UP.random} AS TEXT) || ' ' || CAST(${MADE_UP.stamp} AS TEXT))").execute();
});
`,
    });
    const started = await startServer({ dir, hooksDir, migrationsDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() }).then(
      (s) => s,
      (err: Error) => err,
    );
    if (PG) {
      expect(started).not.toBeInstanceOf(Error);
      reopened = started as RunningServer;
      const after = await notes(reopened.url);
      expect(after.map((n) => n.title)).toEqual([...before.map((n) => n.title), 'migrated'].sort());
      await reopened.close();
      reopened = await startServer({ dir, hooksDir, migrationsDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() });
      expect(await notes(reopened.url)).toEqual(after);
    } else {
      expect(started).toBeInstanceOf(Error);
      expect((started as Error).message).toBe(`Failed to apply migration 1700000000_made_up.js: ${refusal('random()')} (1700000000_made_up.js:2)`);
      reopened = await startServer({ dir, hooksDir, port: 0, uiDir: null, log: () => undefined, ...onEngine() });
      expect(await notes(reopened.url)).toEqual(before);
    }
  });
});
