// Truncating a collection (`DELETE /api/collections/{c}/truncate`, superusers only): every record is
// deleted as a single delete would be, with the same cascades and session ends, in one transaction.
// PocketBase deletes record by record too, and answers a cascade that cannot complete (a required
// relation left empty) with one message for the whole truncate.
import { ApiError, badRequest } from '../../errors.js';
import { ident } from '../../filter/sql.js';
import type { Collection } from '../../model/types.js';
import { SUPERUSERS_ID } from '../../model/types.js';
import { LONG_WRITE_ROWS, LoopSlice } from '../../loop-slice.js';
import { Cascade } from './cascade.js';
import type { PreparedWrite, WriteDeps } from './prepared.js';

/** Ids read per statement (a few ms each). */
const IDS_PER_PAGE = 1000;

export function prepareTruncate(deps: WriteDeps, c: Collection): PreparedWrite<number> {
  // PocketBase refuses to delete the last superuser, so a truncate of them fails: say so up front
  if (c.id === SUPERUSERS_ID) throw badRequest('The superusers collection cannot be truncated.');
  const { registry, sessions } = deps;
  return {
    async apply(tx, changes) {
      // reads from outside go on, on the data as committed, while many records go
      const rows = await tx.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${ident(c.name)} LIMIT ${LONG_WRITE_ROWS}) AS s`);
      if (Number(rows?.n) >= LONG_WRITE_ROWS) await tx.keepReadsGoing?.();
      let deleted = 0;
      // one walk for every record: what a cascade read or deleted serves the next ones
      const cascade = new Cascade(deps.dialect, tx, registry, sessions, changes);
      const slice = new LoopSlice(); // a turn of the loop between slices of records: other requests go on
      // the ids a page at a time, in _rowid_ order: reading 100,000 at once held the loop 250 ms
      const page = `SELECT _rowid_ AS k, "id" AS id FROM ${ident(c.name)} WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ${IDS_PER_PAGE}`;
      try {
        for (let after = Number.MIN_SAFE_INTEGER; ;) {
          const ids = await tx.all<{ k: number; id: string }>(page, [after]);
          if (ids.length === 0) break;
          after = Number(ids[ids.length - 1].k);
          for (const { id } of ids) {
            if (slice.due) await slice.pause();
            const row = await cascade.current(c, id); // an earlier cascade may have taken it already
            if (row === undefined) continue;
            await cascade.delete(c, row);
            deleted++;
          }
        }
        await cascade.finish();
      } catch (err) {
        if (err instanceof ApiError) throw badRequest('Failed to truncate collection (most likely due to required cascade delete record references).');
        throw err;
      }
      return deleted;
    },
  };
}
