// The cron jobs (superusers), as PocketBase's apis/cron.go: GET /api/crons lists them ({id, expression},
// by id, PocketBase's own `__pb*` last), POST /api/crons/{id} starts one now (204 at once, the run going
// on in the background; asked while the job runs, it starts when that run ends; 404 for an unknown id). The jobs are the hooks' (server/hooks/cron.ts).
import type { H3 } from 'h3';
import { ApiError } from '../../errors.js';
import { requireSuperuser } from '../caller.js';
import { param } from '../request.js';
import { noContent } from '../respond.js';

/** What the routes need of the scheduler (server/hooks/cron.ts `Cron`). */
export interface CronJobs {
  jobs(): { id: string; expression: string }[];
  /** Starts job `id`; null when there is no such job. */
  runNow(id: string): Promise<unknown> | null;
}

export function registerCrons(app: H3, crons: () => CronJobs | null): void {
  app.get('/api/crons', (event) => {
    requireSuperuser(event);
    return crons()?.jobs() ?? [];
  });

  app.post('/api/crons/:id', (event) => {
    requireSuperuser(event);
    const run = crons()?.runNow(param(event, 'id')) ?? null;
    if (!run) throw new ApiError(404, 'Missing or invalid cron job.');
    return noContent();
  });
}
