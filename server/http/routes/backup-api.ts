// GET /api/backup: a consistent copy of the database as a SQLite file, for superusers, while the
// server runs (copying the data folder by hand is only safe while it is stopped).
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';

export function registerBackup(app: H3, core: Core): void {
  app.get('/api/backup', (event) => {
    requireSuperuser(event);
    const bytes = core.store.backup();
    const name = `deskbase-${new Date().toISOString().replace(/[:.]/g, '-')}.db`;
    return new Response(new Blob([new Uint8Array(bytes)]), {
      headers: {
        'content-type': 'application/vnd.sqlite3',
        'content-length': String(bytes.byteLength),
        'content-disposition': `attachment; filename="${name}"`,
        'cache-control': 'no-store',
      },
    });
  });
}
