// The schema API, superusers only.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { requireSuperuser } from '../caller.js';
import { contextOf, listContextOf, param } from '../request.js';
import { COLLECTION_BODY_BYTES, readBodyObject } from '../body.js';
import { noContent } from '../respond.js';

export function registerCollections(app: H3, core: Core): void {
  app.get('/api/collections', (event) => {
    requireSuperuser(event);
    return core.collections.list(listContextOf(event, core));
  });
  app.get('/api/collections/:collection', (event) => {
    requireSuperuser(event);
    return core.collections.get(param(event, 'collection'), contextOf(event, core));
  });
  app.post('/api/collections', async (event) => {
    requireSuperuser(event);
    const ctx = contextOf(event, core);
    return core.collections.create(await readBodyObject(event, COLLECTION_BODY_BYTES), ctx);
  });
  app.patch('/api/collections/:collection', async (event) => {
    requireSuperuser(event);
    const ctx = contextOf(event, core);
    return core.collections.update(param(event, 'collection'), await readBodyObject(event, COLLECTION_BODY_BYTES), ctx);
  });
  app.delete('/api/collections/:collection', async (event) => {
    requireSuperuser(event);
    await core.collections.delete(param(event, 'collection'));
    return noContent();
  });
}
