// Deleting many records through POST /api/batch (server/core/batch.ts): up to BATCH_SIZE records per
// request, each batch all or nothing, every delete under the collection's rules and cascades. Far fewer
// round trips and journal syncs than one DELETE per record, and one burst of realtime events per batch.
import { ApiError, type Api } from '../api.js';

/** PocketBase's default batch.maxRequests (server/core/batch.ts MAX_BATCH_REQUESTS): more go as several batches. */
export const BATCH_SIZE = 50;

/** The sub-request a failed batch names (PocketBase's `data.requests.N.response`), if it names one. */
function failedRequest(err: unknown): { index: number; status: number; message: string } | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const requests = err.data.requests;
  if (typeof requests !== 'object') return undefined;
  for (const [key, item] of Object.entries(requests)) {
    const response = (item as { response?: { status?: unknown; message?: unknown } }).response;
    if (typeof response?.status === 'number') return { index: Number(key), status: response.status, message: String(response.message ?? '') };
  }
  return undefined;
}

/** Thrown with the ids deleted before the failure (earlier batches: each batch is all or nothing). */
export class BulkDeleteError extends Error {
  constructor(message: string, readonly deleted: string[]) {
    super(message);
    this.name = 'BulkDeleteError';
  }
}

/**
 * Deletes `ids` of collection `c`; answers the ids that are gone. A record already gone (another selected
 * record's cascade took it, or another client) counts as deleted and its batch runs again without it;
 * any other failure stops the run, naming the record and the server's reason.
 */
export async function deleteInBatches(api: Api, c: string, ids: string[]): Promise<string[]> {
  const done: string[] = [];
  for (let at = 0; at < ids.length; at += BATCH_SIZE) {
    let batch = ids.slice(at, at + BATCH_SIZE);
    while (batch.length > 0) {
      try {
        await api.deleteRecords(c, batch);
        done.push(...batch);
        batch = [];
      } catch (err) {
        const failed = failedRequest(err);
        const id = failed && batch[failed.index];
        if (!failed || id === undefined) throw new BulkDeleteError(err instanceof Error ? err.message : String(err), done);
        if (failed.status !== 404) throw new BulkDeleteError(`Record ${id} could not be deleted: ${failed.message}`, done);
        done.push(id);
        batch = batch.filter((_, i) => i !== failed.index);
      }
    }
  }
  return done;
}
