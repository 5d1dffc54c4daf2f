// GET /api/backup: the whole data (data.db and storage/) as one zip, streamed, for superusers, while
// the server runs. POST /api/backup/restore: a superuser sends such a zip as the body; it is checked,
// then swapped in, the previous data kept as backups/before-restore-<time>.zip in the data folder.
// The zips of the data folder's backups/ as PocketBase's backups API (apis/backup.go): GET /api/backups
// lists them, POST /api/backups writes one ({name} optional), GET /api/backups/{key}?token= downloads
// one with a superuser's file token, DELETE /api/backups/{key}, POST /api/backups/{key}/restore.
import { Readable } from 'node:stream';
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';
import { readBodyObject, takeBody } from '../body.js';
import { json, noContent } from '../respond.js';
import { param } from '../request.js';
import { isSuperuser } from '../../model/types.js';
import { ApiError, badRequest } from '../../errors.js';

export function registerBackup(app: H3, core: Core): void {
  app.get('/api/backup', async (event) => {
    requireSuperuser(event);
    const { name, stream } = await core.backups.backup();
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

  app.get('/api/backups', async (event) => {
    requireSuperuser(event);
    return json(await core.backups.list());
  });

  app.post('/api/backups', async (event) => {
    requireSuperuser(event);
    const body = await readBodyObject(event, 16 * 1024);
    const unknown = Object.keys(body).filter((k) => k !== 'name');
    if (unknown.length > 0) throw badRequest(`Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. A backup takes only a name.`);
    if (body.name !== undefined && typeof body.name !== 'string') throw badRequest('The name must be text.', { name: { code: 'validation_invalid_name', message: 'Must be a file name ending in .zip.' } });
    await core.backups.create(body.name as string | undefined);
    return noContent();
  });

  // the download is a plain link (no Authorization header): a superuser's file token, as PocketBase
  app.get('/api/backups/:key', async (event) => {
    const caller = await core.files.callerOfToken(event.url.searchParams.get('token') ?? '');
    if (!isSuperuser(caller)) throw new ApiError(403, 'Insufficient permissions to access the resource.');
    const key = param(event, 'key');
    const { stream, size } = await core.backups.read(key);
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
      headers: {
        'content-type': 'application/zip',
        'content-length': String(size),
        'content-disposition': `attachment; filename="${key}"`,
        'cache-control': 'no-store',
      },
    });
  });

  app.delete('/api/backups/:key', async (event) => {
    requireSuperuser(event);
    await core.backups.remove(param(event, 'key'));
    return noContent();
  });

  app.post('/api/backups/:key/restore', async (event) => {
    requireSuperuser(event);
    return json(await core.backups.restoreKey(param(event, 'key')));
  });
}
