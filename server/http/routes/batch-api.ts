// POST /api/batch (PocketBase's batch API; the work is core/batch.ts). The body is JSON, or multipart
// with the requests under `@jsonPayload` as the SDK sends it when a sub-request holds files (the files
// themselves, `requests.N.<field>`, are not read yet). One body limit covers the whole batch.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { MAX_BODY_BYTES, readBodyObject } from '../body.js';
import { inputOf } from '../request.js';

export function registerBatch(app: H3, core: Core): void {
  app.post('/api/batch', async (event) => {
    const body = await readBodyObject(event, MAX_BODY_BYTES);
    return core.batch.run(body, inputOf(event));
  });
}
