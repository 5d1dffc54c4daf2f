// Attack findings (issue 25, team server): state nodes share through the database. Three real nodes
// on one PostgreSQL database, fetch over sockets. What holds is a plain test; each defect an it.fails
// whose assertion is what should happen.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { ADMIN } from '../support/sdk-server.js';

let db: FreshDatabase;
const tokens: Record<'a' | 'b', string[]> = { a: [], b: [] };

const node = (k: 'a' | 'b') => startServer({
  dir: null, port: 0, uiDir: null, log: () => undefined,
  onSetupToken: (t) => void tokens[k].push(t),
  openStore: () => openPostgresStore({ url: db.url, max: 3 }),
});

async function setup(server: RunningServer, token: string): Promise<number> {
  const res = await fetch(`${server.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, ...ADMIN }) });
  await res.arrayBuffer();
  return res.status;
}

describePostgres('setup tokens between nodes (attack findings)', () => {
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    db = await freshDatabase('attack_shared');
    [a, b] = await Promise.all([node('a'), node('b')]);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await db?.drop();
  });

  // Node A printed a setup link, then stopped (closed cleanly). Its token's hash stays in _params and
  // node B still accepts it: a link left in a stopped (or decommissioned) node's log keeps the power
  // to create the first superuser for as long as nobody has. On the desktop a token dies with its
  // process. Now: a node closing removes its own token (`setupToken.<sha256>`, core/setup.ts withdraw),
  // so B refuses it (403, as any unknown token), and B's own token still works.
  it('a stopped node\'s setup token is no longer accepted by the node still running', async () => {
    expect(tokens.a).toHaveLength(1);
    await a.close();
    expect(await setup(b, 'an-unknown-token')).toBe(403);
    expect(await setup(b, tokens.a[0])).toBe(403);
    expect(await setup(b, tokens.b[0])).toBe(200);
  });
});
