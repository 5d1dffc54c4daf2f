// The schema API, superusers only.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../auth.js';
import { listQuery, param, requestInfo } from '../request.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
import { noContent, picked, pickedPage } from '../respond.js';

export function registerCollections(app: H3, core: Core): void {
  app.get('/api/collections', (event) => {
    requireSuperuser(event);
    return pickedPage(event, core.collections.list(listQuery(event), requestInfo(event)));
  });
  app.get('/api/collections/:collection', (event) => {
    requireSuperuser(event);
    return picked(event, core.collections.get(param(event, 'collection')));
  });
  app.post('/api/collections', async (event) => {
    requireSuperuser(event);
    return picked(event, await core.collections.create(await readBodyObject(event, COLLECTION_BODY_BYTES)));
  });
  app.patch('/api/collections/:collection', async (event) => {
    requireSuperuser(event);
    return picked(event, await core.collections.update(param(event, 'collection'), await readBodyObject(event, COLLECTION_BODY_BYTES)));
  });
  app.delete('/api/collections/:collection', async (event) => {
    requireSuperuser(event);
    await core.collections.delete(param(event, 'collection'));
    return noContent();
  });
}
