// Deleting a record: the deleteRule first (404 when it fails); inside the transaction, the deleteRule
// again, the last superuser kept, and the delete with its cascades (cascade.ts).
import { badRequest } from '../../errors.js';
import { refuseIfLocked } from '../access.js';
import { ident } from '../../filter/sql.js';
import { viewRecord } from '../records-read.js';
import type { RequestContext } from '../request-context.js';
import type { Collection } from '../../model/types.js';
import { isSuperuser, SUPERUSERS_ID } from '../../model/types.js';
import { deleteWithReferences } from './cascade.js';
import type { PreparedWrite, WriteDeps } from './prepared.js';

export async function prepareDelete(deps: WriteDeps, c: Collection, id: string, ctx: RequestContext): Promise<PreparedWrite<null>> {
  const { db, registry, sessions } = deps;
  refuseIfLocked(c, 'deleteRule', isSuperuser(ctx.request.auth));
  await viewRecord(db, c, id, ctx, 'deleteRule');
  return {
    async apply(tx, changes) {
      const row = await viewRecord(tx, c, id, ctx, 'deleteRule');
      if (c.id === SUPERUSERS_ID) {
        const n = (await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ident(c.name)}`))?.n ?? 0;
        if (Number(n) <= 1) throw badRequest("You can't delete the only existing superuser.");
      }
      await deleteWithReferences(deps.dialect, tx, registry, sessions, c, row, changes);
      return null;
    },
  };
}
