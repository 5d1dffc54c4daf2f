// GET /api/backup: the whole data (data.db and storage/) as one zip, streamed, for superusers, while
// the server runs. POST /api/backup/restore: a superuser sends such a zip as the body; it is checked,
// then swapped in, the previous data kept as backups/before-restore-<time>.zip in the data folder.
import { PassThrough, Readable } from 'node:stream';
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';
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
    const node = event.runtime?.node?.req;
    // taken over before anything awaits; `event.req.body` only without node's request (reading it
    // would start a second reader of the same bytes)
    const source = new PassThrough();
    const web = node ? null : event.req.body;
    if (node) node.pipe(source);
    else if (web) Readable.fromWeb(web as import('node:stream/web').ReadableStream<Uint8Array>).pipe(source);
    else source.end();
    const result = await core.backups.restore(source, Number(event.req.headers.get('content-length') ?? '0'));
    return json(result);
  });
}
