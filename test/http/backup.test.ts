// GET /api/backup: one zip with a consistent SQLite copy of the database (data.db), for superusers only.

import { describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness } from '../support/harness.js';

describe('backup', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  const create = (body: unknown) => h.req('POST', '/api/collections', { token: su, body });

  describe('backup', () => {
    it('superusers download a zip holding a consistent SQLite copy; others are refused', async () => {
      await create({ name: 'notes', createRule: '', fields: [{ name: 't', type: 'text' }] });
      await h.req('POST', '/api/collections/notes/records', { body: { t: 'kept' } });
      expect((await h.req('GET', '/api/backup')).status).toBe(401);
      const res = await h.app.request('http://localhost:8090/api/backup', { headers: { authorization: `Bearer ${su}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="deskbase-.*\.zip"/);
      const { unzip } = await import('../files/zip-read.js');
      const bytes = new Uint8Array((await unzip(Buffer.from(await res.arrayBuffer()))).get('data.db')!);
      expect(new TextDecoder().decode(bytes.slice(0, 15))).toBe('SQLite format 3');
      const { loadSqlJs } = await import('../../server/store/db.js');
      const SQL = await loadSqlJs();
      const db = new SQL.Database(bytes);
      expect(db.exec('SELECT t FROM notes')[0].values).toEqual([['kept']]);
      db.close();
    });
  });
});
