// The application settings (superusers): GET/PATCH /api/settings, POST /api/settings/test/email; and
// Deskbase's outbox, GET /api/mails (the messages kept while SMTP is off or a send failed, newest first).
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import { maskedSettings } from '../../core/settings.js';
import { requireSuperuser } from '../caller.js';
import { AUTH_BODY_BYTES, readBodyObject } from '../body.js';
import { noContent } from '../respond.js';

/** A settings body: the templates of no collection travel here; 1 MiB is more than any settings need. */
const SETTINGS_BODY_BYTES = 1024 * 1024;

export function registerSettings(app: H3, core: Core): void {
  app.get('/api/settings', async (event) => {
    requireSuperuser(event);
    return maskedSettings(await core.settings.get());
  });

  app.patch('/api/settings', async (event) => {
    requireSuperuser(event);
    return core.settings.update(await readBodyObject(event, SETTINGS_BODY_BYTES));
  });

  app.post('/api/settings/test/email', async (event) => {
    requireSuperuser(event);
    await core.accountMail.sendTest(await readBodyObject(event, AUTH_BODY_BYTES));
    return noContent();
  });

  app.get('/api/mails', async (event) => {
    requireSuperuser(event);
    return { items: await core.mailer.list() };
  });
}
