// Record CRUD under the collection's rules.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { listQuery, param, requestInfo } from '../request.js';
import { readBodyObject } from '../body.js';
import { expandParam, noContent, picked, pickedNames, pickedPage } from '../respond.js';

export function registerRecords(app: H3, core: Core): void {
  const base = '/api/collections/:collection/records';
  app.get(base, (event) =>
    pickedPage(event, core.records.list(param(event, 'collection'), listQuery(event), requestInfo(event), expandParam(event), pickedNames(event))));
  app.get(`${base}/:id`, (event) =>
    picked(event, core.records.view(param(event, 'collection'), param(event, 'id'), requestInfo(event), expandParam(event))));
  app.post(base, async (event) => {
    const body = await readBodyObject(event);
    return picked(event, await core.records.create(param(event, 'collection'), body, requestInfo(event, body), expandParam(event)));
  });
  app.patch(`${base}/:id`, async (event) => {
    const body = await readBodyObject(event);
    return picked(event, await core.records.update(param(event, 'collection'), param(event, 'id'), body, requestInfo(event, body), expandParam(event)));
  });
  app.delete(`${base}/:id`, async (event) => {
    await core.records.remove(param(event, 'collection'), param(event, 'id'), requestInfo(event));
    return noContent();
  });
}
