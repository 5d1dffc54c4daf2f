// Files: GET/HEAD /api/files/{collection}/{recordId}/{filename} (thumbnails, protected files) and
// POST /api/files/token (a short-lived token for protected files, for signed-in callers).
import type { H3, H3Event } from 'h3';
import type { Core } from '../../core/index.js';
import { requireAuth } from '../caller.js';
import { fileResponse } from '../file-response.js';
import { contextOf, param } from '../request.js';
import { json } from '../respond.js';

export function registerFiles(app: H3, core: Core): void {
  const serve = async (event: H3Event) => {
    const ctx = contextOf(event, core);
    const file = await core.files.find(param(event, 'collection'), param(event, 'recordId'), param(event, 'filename'), ctx);
    return fileResponse(event.req, event.url, file);
  };
  app.get('/api/files/:collection/:recordId/:filename', serve);
  app.head('/api/files/:collection/:recordId/:filename', serve);
  app.post('/api/files/token', (event) => json({ token: core.files.token(requireAuth(event)) }));
}
