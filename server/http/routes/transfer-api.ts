// Data in and out (docs/architecture.md, "Data in and out"): schema import and export, truncate,
// records export and import, typed clients, moving from PocketBase.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { boolParam } from '../../core/request-params.js';
import { requireSuperuser } from '../caller.js';
import { contextOf, listContextOf, param } from '../request.js';
import { COLLECTION_BODY_BYTES, IMPORT_BODY_BYTES, readBodyBytes, readBodyObject, takeBody } from '../body.js';
import { noContent } from '../respond.js';

export function registerTransfer(app: H3, core: Core): void {
  app.put('/api/collections/import', async (event) => {
    requireSuperuser(event);
    return core.transfer.importSchema(await readBodyObject(event, COLLECTION_BODY_BYTES));
  });
  app.get('/api/collections/meta/export', (event) => {
    requireSuperuser(event);
    const only = event.url.searchParams.get('collections');
    return core.transfer.exportSchema(only === null || only.trim() === '' ? null : only.split(',').map((s) => s.trim()).filter(Boolean));
  });
  // the upload is PocketBase's pb_data/data.db or a backup zip of pb_data (a desktop file picker reaches
  // them; a server path would let anyone holding a superuser session read files the server can read),
  // streamed to disk as a restore's body is; `?dryRun=true` answers what it would change, applying nothing
  app.post('/api/import/pocketbase', async (event) => {
    requireSuperuser(event);
    const dryRun = boolParam(event.url.searchParams.get('dryRun'), 'dryRun');
    return core.transfer.importPocketBaseUpload(() => takeBody(event), Number(event.req.headers.get('content-length') ?? '0'), dryRun);
  });
  app.get('/api/collections/types.ts', (event) => {
    requireSuperuser(event);
    return new Response(core.transfer.typescriptTypes(), {
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-disposition': 'attachment; filename="pocketbase-types.ts"', 'cache-control': 'no-store' },
    });
  });
  app.delete('/api/collections/:collection/truncate', async (event) => {
    requireSuperuser(event);
    await core.transfer.truncate(param(event, 'collection'));
    return noContent();
  });
}

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The format a records import names (`?format=`), or the one its content type says. */
function importFormat(query: string | null, contentType: string): string {
  if (query !== null && query !== '') return query;
  const media = contentType.split(';', 1)[0].trim().toLowerCase();
  if (media === 'text/csv') return 'csv';
  if (media === 'application/x-ndjson') return 'ndjson';
  return 'json';
}

/** A streamed body from text pieces; the generator's first chunk is already read (its errors came first). A later error cuts the connection. */
function streamOf(pieces: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}

export function registerRecordsTransfer(app: H3, core: Core): void {
  const base = '/api/collections/:collection/records';
  app.get(`${base}/export`, async (event) => {
    const format = event.url.searchParams.get('format') ?? 'csv';
    const name = param(event, 'collection');
    const pieces = await core.transfer.exportRecords(name, format, listContextOf(event, core), event.url.searchParams.get('ids'));
    const file = `${name.replace(/[^\w-]/g, '_')}.${format}`;
    return new Response(streamOf(pieces), {
      headers: { 'content-type': CONTENT_TYPES[format], 'content-disposition': `attachment; filename="${file}"`, 'cache-control': 'no-store' },
    });
  });
  app.post(`${base}/import`, async (event) => {
    requireSuperuser(event);
    const format = importFormat(event.url.searchParams.get('format'), event.req.headers.get('content-type') ?? '');
    // no variable holds the body: the import drops its text once parsed
    return core.transfer.importRecords(param(event, 'collection'), await readBodyBytes(event, IMPORT_BODY_BYTES), format, contextOf(event, core));
  });
}
