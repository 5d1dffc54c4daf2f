// Attack findings (issue 25, team server): names PostgreSQL gives a meaning SQLite does not. Real
// server, real PostgreSQL 15, fetch over a socket; each defect is an it.fails whose assertion is what
// should happen instead.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

let db: FreshDatabase;
let team: SdkServer;

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(team.server.url + path, { ...init, headers: { authorization: team.admin.authStore.token, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describePostgres('names PostgreSQL reads otherwise (attack findings)', () => {
  beforeAll(async () => {
    db = await freshDatabase('attack_names');
    team = await startSdkServer({ openStore: () => openPostgresStore({ url: db.url, max: 3 }) });
  }, 60_000);
  afterAll(async () => {
    await team?.server.close();
    await db?.drop();
  });

  // A collection named like a pg_catalog relation (pg_settings, pg_roles, pg_stat_activity, pg_type...)
  // was made as public."pg_settings", but every later statement names it unqualified, and PostgreSQL
  // looks in pg_catalog BEFORE public: its records could never be written, listed or the collection
  // dropped (500 "column id of relation pg_settings does not exist"), and the statements ran against
  // the catalog relation itself (an UPDATE of pg_settings is a set_config). Now: refused with a 400 on
  // `name` (the dialect reserves `pg_`), nothing created.
  it('a collection named like a catalog relation (pg_settings, pg_roles, pg_type) is refused with a 400 on name', async () => {
    for (const name of ['pg_settings', 'pg_roles', 'PG_Type']) {
      const made = await call('/api/collections', { method: 'POST', body: JSON.stringify({ name, type: 'base', listRule: '', createRule: '', fields: [{ name: 'title', type: 'text' }] }) });
      expect(made.status, name).toBe(400);
      expect(Object.keys(made.body.data), name).toEqual(['name']);
      expect(made.body.data.name.message, name).toMatch(/reserved/);
      expect((await call(`/api/collections/${name}`)).status, name).toBe(404);
    }
    // a rename onto such a name is refused the same way
    const ok = await call('/api/collections', { method: 'POST', body: JSON.stringify({ name: 'plain_name', type: 'base', fields: [] }) });
    expect(ok.status).toBe(200);
    const renamed = await call('/api/collections/plain_name', { method: 'PATCH', body: JSON.stringify({ name: 'pg_class' }) });
    expect(renamed.status).toBe(400);
    expect(Object.keys(renamed.body.data)).toEqual(['name']);
  });

  // A field named like a PostgreSQL system column (ctid, xmin, xmax, cmin, cmax, tableoid) answered
  // 500 ("column name ctid conflicts with a system column name"). Now: a 400 on that field's name
  // (PocketBase's validation shape: data.fields.<i>.name), nothing created.
  it('a field named like a system column (ctid, xmin, xmax, cmin, cmax, tableoid) is refused with a 400 naming it', async () => {
    for (const field of ['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'XMin']) {
      const r = await call('/api/collections', { method: 'POST', body: JSON.stringify({ name: `sys_${field}`, type: 'base', fields: [{ name: 'title', type: 'text' }, { name: field, type: 'text' }] }) });
      expect(r.status, field).toBe(400);
      expect(Object.keys(r.body.data), field).toEqual(['fields']);
      expect(Object.keys(r.body.data.fields), field).toEqual(['1']);
      expect(Object.keys(r.body.data.fields[1]), field).toEqual(['name']);
      expect((await call(`/api/collections/sys_${field}`)).status, field).toBe(404);
    }
  });
});
