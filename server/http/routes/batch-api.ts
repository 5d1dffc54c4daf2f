// POST /api/batch (PocketBase's batch API; the work is core/batch.ts). The body is JSON, or multipart
// with the requests under `@jsonPayload` and each request's files keyed `requests.N.<field>`, as the
// SDK's createBatch() sends them (upload-form.ts): the files stream to the data folder and join their
// request's body, where its write validates and places them as a single create or update would;
// uploads no write placed (a refused or rolled-back batch) are removed once the batch is answered.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { RECORD_BODY_BYTES, readBodyObject } from '../body.js';
import { inputOf } from '../request.js';
import { batchRateLimit } from '../rate-limit.js';
import { isMultipart } from '../multipart.js';
import { readBatchForm } from '../upload-form.js';

export function registerBatch(app: H3, core: Core): void {
  app.post('/api/batch', async (event) => {
    const limit = batchRateLimit(event, core); // each sub-request against the rate-limit rules, as PocketBase's
    if (!isMultipart(event)) return core.batch.run(await readBodyObject(event, RECORD_BODY_BYTES), inputOf(event), limit);
    const { body, uploads } = await readBatchForm(event, core);
    try {
      return await core.batch.run(body, inputOf(event), limit);
    } finally {
      if (uploads.length > 0) await core.files.discard(uploads);
    }
  });
}
