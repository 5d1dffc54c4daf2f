// Record CRUD under the collection's rules.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { contextOf, listContextOf, param } from '../request.js';
import { readBodyObject } from '../body.js';
import { noContent } from '../respond.js';

export function registerRecords(app: H3, core: Core): void {
  const base = '/api/collections/:collection/records';
  app.get(base, (event) => core.records.list(param(event, 'collection'), listContextOf(event, core)));
  app.get(`${base}/:id`, (event) => core.records.view(param(event, 'collection'), param(event, 'id'), contextOf(event, core)));
  app.post(base, async (event) => {
    const body = await readBodyObject(event);
    return core.records.create(param(event, 'collection'), body, contextOf(event, core));
  });
  app.patch(`${base}/:id`, async (event) => {
    const body = await readBodyObject(event);
    return core.records.update(param(event, 'collection'), param(event, 'id'), body, contextOf(event, core));
  });
  app.delete(`${base}/:id`, async (event) => {
    await core.records.remove(param(event, 'collection'), param(event, 'id'), contextOf(event, core));
    return noContent();
  });
}
