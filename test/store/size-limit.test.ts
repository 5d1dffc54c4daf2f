// F8: a checkpoint copies the whole database synchronously (sql.js's export(), about 110 ms per 100 MB
// here), so what can be bounded is bounded: the database has a size cap (a write past it is a 507 in
// the envelope, nothing changed, deletes still work), and the snapshot's checksum is computed a slice
// per turn of the event loop, with writes made meanwhile going to the new journal segment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { crashCopy, useStores } from '../fixtures/store-helpers.js';

const stores = useStores();

describe('F8: the database size cap', () => {
  let server: RunningServer;
  let su: string;
  beforeAll(async () => {
    server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, store: { maxDatabaseBytes: 1024 * 1024 } });
    su = await setupSuperuser(server.url, (await server.setupToken())!);
    const r = await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text', max: 1_000_000 }], createRule: '', deleteRule: '' } });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => { await server.close(); });

  it('a write past the cap is a 507 that changes nothing; deleting makes room again', async () => {
    const made: string[] = [];
    let refused: { status: number; body: { message: string } } | null = null;
    for (let i = 0; i < 8 && refused === null; i++) {
      const r = await http(server.url, 'POST', '/api/collections/notes/records', { body: { text: `${i}${'x'.repeat(200_000)}` } });
      if (r.status === 200) made.push(r.body.id);
      else refused = r;
    }
    expect(refused?.status).toBe(507);
    expect(refused?.body.message).toBe('The database has reached its size limit. Nothing was changed; delete records to make room.');
    const listed = await http(server.url, 'GET', '/api/collections/notes/records?fields=id', { token: su });
    expect(listed.body.totalItems).toBe(made.length);
    expect((await http(server.url, 'DELETE', `/api/collections/notes/records/${made[0]}`)).status).toBe(204);
    expect((await http(server.url, 'POST', '/api/collections/notes/records', { body: { text: 'small' } })).status).toBe(200);
  });
});

describe('F8: the checkpoint checksum off the critical path', () => {
  it('writes made while the snapshot is checksummed survive a crash right after', async () => {
    const dir = stores.dirs.make();
    const store = await stores.openAt(dir);
    await store.write((tx) => tx.run('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)'));
    await store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', ['big', 'x'.repeat(20_000_000)]));
    const checkpoint = store.checkpoint();
    // the export is done synchronously; these land while the 20 MB checksum runs in slices
    const during = Promise.all(['a', 'b', 'c'].map((id) => store.write((tx) => tx.run('INSERT INTO t VALUES (?, ?)', [id, id]))));
    await Promise.all([checkpoint, during]);
    const crashed = stores.dirs.make();
    crashCopy(dir, crashed);
    const reopened = await stores.openAt(crashed);
    expect((await reopened.all<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id)).toEqual(['a', 'b', 'big', 'c']);
  });
});
