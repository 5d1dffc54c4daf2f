// Data in and out (docs/architecture.md, "Data in and out"): schema import and export, truncate,
// records export and import, typed clients, moving from PocketBase.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';
import { param } from '../request.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
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
  app.delete('/api/collections/:collection/truncate', async (event) => {
    requireSuperuser(event);
    await core.transfer.truncate(param(event, 'collection'));
    return noContent();
  });
}
