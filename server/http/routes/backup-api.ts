// GET /api/backup: the whole data (data.db and storage/) as one zip, streamed, for superusers, while
// the server runs. POST /api/backup/restore: a superuser sends such a zip as the body; it is checked,
// then swapped in, the previous data kept as backups/before-restore-<time>.zip in the data folder.
import { Readable } from 'node:stream';
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';
import { takeBody } from '../body.js';
import { json } from '../respond.js';

export function registerBackup(app: H3, core: Core): void {
  app.get('/api/backup', (event) => {
    requireSuperuser(event);
    const { name, stream } = core.backups.backup();
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
      headers: {
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename="${name}"`,
        'cache-control': 'no-store',
      },
    });
  });

  app.post('/api/backup/restore', async (event) => {
    requireSuperuser(event);
    // the body is taken only once the restore is not refused up front (another one running)
    const result = await core.backups.restore(() => takeBody(event), Number(event.req.headers.get('content-length') ?? '0'));
    return json(result);
  });
}
