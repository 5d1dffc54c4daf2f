// Record CRUD under the collection's rules. Multipart bodies stream their files to the data folder
// (upload-form.ts); uploads no write placed are removed once the request is answered.
import type { H3, H3Event } from 'h3';
import type { Core } from '../../core/index.js';
import type { StagedFile } from '../../files/staged.js';
import { contextOf, listContextOf, param } from '../request.js';
import { readBodyObject } from '../body.js';
import { noContent } from '../respond.js';
import { isMultipart } from '../multipart.js';
import { readRecordForm } from '../upload-form.js';

/** Reads a write's body (files included) and runs it, removing what it received and did not place. */
async function withBody<T>(event: H3Event, core: Core, failed: string, rule: 'createRule' | 'updateRule', run: (body: Record<string, unknown>) => Promise<T>): Promise<T> {
  // a write locked to superusers is refused from the request's head: no byte of its body is read, no
  // file of it received
  core.records.refuseLocked(param(event, 'collection'), rule, contextOf(event, core));
  if (!isMultipart(event)) return run(await readBodyObject(event));
  const { body, uploads } = await readRecordForm(event, core, param(event, 'collection'), failed);
  try {
    return await run(body);
  } finally {
    if (uploads.length > 0) await core.files.discard(uploads as StagedFile[]);
  }
}

export function registerRecords(app: H3, core: Core): void {
  const base = '/api/collections/:collection/records';
  app.get(base, (event) => core.records.list(param(event, 'collection'), listContextOf(event, core)));
  app.get(`${base}/:id`, (event) => core.records.view(param(event, 'collection'), param(event, 'id'), contextOf(event, core)));
  app.post(base, (event) => withBody(event, core, 'Failed to create record.', 'createRule', (body) => core.records.create(param(event, 'collection'), body, contextOf(event, core))));
  app.patch(`${base}/:id`, (event) =>
    withBody(event, core, 'Failed to update record.', 'updateRule', (body) => core.records.update(param(event, 'collection'), param(event, 'id'), body, contextOf(event, core))));
  app.delete(`${base}/:id`, async (event) => {
    await core.records.remove(param(event, 'collection'), param(event, 'id'), contextOf(event, core));
    return noContent();
  });
}
