// First-time setup: is it required (or held back, setup.ts), and creating the first superuser with the printed token.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { AUTH_BODY_BYTES, readBodyObject } from '../body.js';

export function registerSetup(app: H3, core: Core): void {
  app.get('/api/setup', () => core.setup.status());
  app.post('/api/setup', async (event) => core.setup.complete(await readBodyObject(event, AUTH_BODY_BYTES)));
}
