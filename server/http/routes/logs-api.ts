// The logs (superusers only, as PocketBase's apis/logs.go): GET /api/logs (page, perPage, sort, filter,
// skipTotal, fields), GET /api/logs/stats (hourly counts, filter), GET /api/logs/{id}. What is logged and
// where it is kept: server/logs/.
import type { H3 } from 'h3';
import type { Core } from '../../core/index.js';
import type { Logs } from '../../logs/index.js';
import { pick, pickAll } from '../../core/pick-fields.js';
import { requireSuperuser } from '../caller.js';
import { contextOf, param } from '../request.js';

export function registerLogs(app: H3, core: Core, logs: Logs): void {
  app.get('/api/logs', async (event) => {
    requireSuperuser(event);
    const ctx = contextOf(event, core);
    const page = await logs.list(ctx.request.query, ctx.request);
    return { ...page, items: pickAll(page.items, ctx.fields) };
  });

  app.get('/api/logs/stats', async (event) => {
    requireSuperuser(event);
    const ctx = contextOf(event, core);
    return logs.stats(ctx.request.query.filter ?? '', ctx.request);
  });

  app.get('/api/logs/:id', async (event) => {
    requireSuperuser(event);
    const ctx = contextOf(event, core);
    return pick(await logs.view(param(event, 'id')), ctx.fields);
  });
}
