// Core and the HTTP app over the PostgreSQL store: what the team server cannot do the desktop's way
// answers a 400 naming what to use instead, never a 500. (The API suites of vitest.config.ts's
// ON_BOTH_ENGINES prove the rest on PostgreSQL through test/support/test-store.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCore } from '../../server/core/index.js';
import { createApp } from '../../server/http/app.js';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
let store: PostgresStore;
let request: (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;
let su = '';
let dir = '';

describePostgres('the HTTP API on the PostgreSQL store', () => {
  beforeAll(async () => {
    db = await freshDatabase('http');
    // with a folder for files, as a team server given --dir (without one, backups answer that they need one)
    dir = await mkdtemp(join(tmpdir(), 'deskbase-pg-http-'));
    store = await openPostgresStore({ url: db.url, max: 4, dir });
    let setup = '';
    const core = await createCore(store, { onSetupToken: (t) => (setup = t) });
    await core.setup.issue();
    const app = createApp(core, { uiDir: null });
    request = async (method, path, body, token) => {
      const headers: Record<string, string> = { host: 'localhost:8090' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (token) headers.authorization = `Bearer ${token}`;
      const res = await app.request(`http://localhost:8090${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const email = 'admin@example.com';
    const password = 'correct horse';
    expect((await request('POST', '/api/setup', { token: setup, email, password })).status).toBe(200);
    su = (await request('POST', '/api/collections/_superusers/auth-with-password', { identity: email, password })).body.token as string;
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers a backup with a 400 naming pg_dump', async () => {
    for (const [method, path] of [['GET', '/api/backup'], ['POST', '/api/backups']] as const) {
      const res = await request(method, path, method === 'POST' ? {} : undefined, su);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.message).toMatch(/pg_dump/);
    }
  });
});

// A team server given no --dir answered POST /api/backups with "this server keeps its data in memory"
// (wrong: its data is in PostgreSQL); a backup and a restore answer the store's own 400 naming
// pg_dump / pg_restore, as with a folder. Real server over a socket.
describePostgres('a team server without a data folder: backups', () => {
  it('answers a backup and a restore with the 400 naming pg_dump / pg_restore, never "in memory"', async () => {
    const bare = await freshDatabase('http_nodir');
    const team = await startSdkServer({ openStore: () => openPostgresStore({ url: bare.url, max: 3 }) });
    try {
      const cases = [['GET', '/api/backup', /pg_dump/], ['POST', '/api/backups', /pg_dump/], ['POST', '/api/backup/restore', /pg_restore/]] as const;
      for (const [method, path, names] of cases) {
        const res = await fetch(team.server.url + path, {
          method, headers: { authorization: team.admin.authStore.token, 'content-type': method === 'POST' ? 'application/json' : 'text/plain' },
          body: method === 'POST' ? '{}' : undefined,
        });
        const body = (await res.json()) as { status: number; message: string };
        expect(res.status, `${method} ${path}`).toBe(400);
        expect(body.message, `${method} ${path}`).toMatch(names);
        expect(body.message, `${method} ${path}`).not.toMatch(/memory/);
      }
    } finally {
      await team.server.close();
      await bare.drop();
    }
  }, 60_000);
});
