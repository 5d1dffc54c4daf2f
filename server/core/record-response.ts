// A record's response shape, built here and nowhere else (lists, views, writes, sign-in, refresh,
// setup): stored rows → API records as the caller may see them (record-serializer.ts), expanded
// (expand.ts), then cut to the `fields` asked for (pick-fields.ts).
import { ident } from '../filter/sql.js';
import type { ReadDb } from '../store/db.js';
import { ruleSql } from './access.js';
import { expandRecords, ExpandTooLarge } from './expand.js';
import { pickAll } from './pick-fields.js';
import { MAX_RESPONSE_BYTES } from './query-budget.js';
import { recordSerializer, viewerOf, type Viewer } from './record-serializer.js';
import type { RequestContext } from './request-context.js';
import type { Collection, Row } from '../model/types.js';
import type { CoreEvents } from './events.js';
import { enrichRecords } from './event-records.js';

/** Ids among `rows` whose manageRule the caller satisfies: managers see emails (undefined, at once: no query to make). */
function managedIds(db: ReadDb, c: Collection, rows: Row[], ctx: RequestContext): Promise<Set<string>> | undefined {
  if (c.type !== 'auth' || !c.manageRule || !ctx.request.auth || rows.length === 0) return undefined;
  return managersAmong(db, c, c.manageRule, rows, ctx);
}

async function managersAmong(db: ReadDb, c: Collection, manageRule: string, rows: Row[], ctx: RequestContext): Promise<Set<string>> {
  const w = ruleSql(manageRule, c, ctx);
  const ids = rows.map((r) => String(r.id));
  const found = await db.all<{ id: string }>(
    `SELECT r."id" AS id FROM ${ident(c.name)} AS r WHERE r."id" IN (${ids.map(() => '?').join(',')}) AND (${w.sql})`,
    [...ids, ...w.params],
  );
  return new Set(found.map((r) => r.id));
}

/**
 * Rows as the caller sees them, expanded and picked. `written`: the answer to a write (or a sign-in)
 * that is already committed, where an expand past MAX_EXPANDED_RECORDS or `maxBytes` leaves the record
 * unexpanded rather than turn a done write into a 400 (a client would retry it). `:excerpt` is made
 * once per distinct text of the whole answer (pickAll).
 */
export async function presentRecords(db: ReadDb, c: Collection, rows: Row[], ctx: RequestContext, written = false, maxBytes = MAX_RESPONSE_BYTES, events?: CoreEvents): Promise<unknown[]> {
  const managed = managedIds(db, c, rows, ctx);
  const viewer: Viewer = viewerOf(ctx.request);
  if (managed !== undefined) viewer.managed = await managed;
  let records = rows.map(recordSerializer(c, viewer));
  if (ctx.expand.size > 0) {
    try {
      records = await expandRecords(db, c, records, ctx, maxBytes);
    } catch (err) {
      if (!(written && err instanceof ExpandTooLarge)) throw err;
    }
  }
  // onRecordEnrich hooks hide or add keys of each record (event-records.ts), before `fields` picks
  if (events?.has('onRecordEnrich', c)) records = await enrichRecords(events, c, rows, records, ctx);
  return pickAll(records, ctx.fields);
}
