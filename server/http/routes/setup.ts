import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { viewerOf, serializeRecord } from '../../core/serialize.js';
import { SUPERUSERS_ID } from '../../core/types.js';
import { requestInfo } from '../request.js';
import { AUTH_BODY_BYTES, readBodyObject } from '../body.js';

export function registerSetup(app: H3, core: Core): void {
  app.get('/api/setup', () => {
    const heldBack = core.setup.heldBack();
    return heldBack === null ? { required: core.setup.required() } : { required: true, heldBack };
  });
  app.post('/api/setup', async (event) => {
    const row = await core.setup.complete(await readBodyObject(event, AUTH_BODY_BYTES));
    const su = core.collections.get(SUPERUSERS_ID);
    return serializeRecord(su, row, { ...viewerOf(requestInfo(event)), superuser: true });
  });
}
