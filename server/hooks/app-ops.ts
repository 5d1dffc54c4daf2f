// The host side of `$app` (worker/app.cjs) and of the helpers that need the server ($http.send, mail):
// each operation runs in the calling handler's scope, so inside a write it reads and writes through
// that write's transaction (scope.tx). Records cross as wire records (contract.ts `WireRecord`).
import { ApiError, notFound } from '../errors.js';
import type { Core } from '../core/index.js';
import type { EventScope } from '../core/events.js';
import { countRecords, findRecords } from '../core/records-find.js';
import { bodyOfWire, wireOf, type WireRecord } from '../core/event-records.js';
import { getRow } from '../core/records-read.js';
import { asCaller } from '../core/request-context.js';
import { expandRecords } from '../core/expand.js';
import { recordSerializer } from '../core/record-serializer.js';
import type { Collection, Row } from '../model/types.js';
import { SUPERUSERS_ID } from '../model/types.js';
import type { ReadDb } from '../store/db.js';
import { QUERY_BUDGET_MS, underDeadline } from '../core/query-budget.js';
import type { HostOps, OpContext } from './runtime.js';
import { superusersCollection } from '../core/collections-defaults.js';
import { derivedId } from '../core/transfer/schema-plan.js';

/** PocketBase apps hard-code the id of its starter `users` collection. */
export const POCKETBASE_USERS_ID = '_pb_users_auth_';

/** A collection by id or name for hooks (`_pb_users_auth_` → `users`), or a 404. */
export function hookCollection(core: Core, idOrName: string): Collection {
  // a collection a migration or import made from PocketBase's JSON has the id derived from its PocketBase id (`pbc_…`)
  const c = core.registry.get(idOrName) ?? (idOrName === POCKETBASE_USERS_ID ? core.registry.get('users') : core.registry.get(derivedId(idOrName)));
  if (!c) throw notFound(`Missing collection "${idOrName}".`);
  return c;
}

/** What a hook's own reads and writes act as: PocketBase's app bypasses the API rules. */
export function systemContext(core: Core) {
  const su = superusersCollection();
  return asCaller(core.internalContext(), { collection: su, record: { id: 'hooks', collectionId: SUPERUSERS_ID }, sessionId: '' });
}

/**
 * Where a hook's reads go: the write's transaction (under the write's budget), else the store under a
 * query budget of their own per operation, as every read a client drives: one hook's heavy filter is
 * a 400 at the budget, never a stall of the event loop (sql.js runs on it).
 */
async function reading<T>(core: Core, scope: EventScope, read: (db: ReadDb) => Promise<T>): Promise<T> {
  if (scope.tx) return read(scope.tx);
  return underDeadline(core.store, QUERY_BUDGET_MS, read);
}

export function appOps(core: Core, options: { dataDir: string | null }): HostOps {
  const lookup = core.registry.lookup;
  const dialect = core.store.dialect === 'postgres' ? undefined : undefined;
  void dialect;
  const find = async (ctx: OpContext, name: string, filter: string, sort: string, limit: number, offset: number, params: Record<string, unknown>) => {
    const c = hookCollection(core, name);
    const rows = await reading(core, ctx.scope, (db) => findRecords(db, c, { filter, sort, limit, offset, params }, lookup, core.internalContext().dialect));
    return rows.map((r) => wireOf(c, r));
  };
  return {
    'app.findCollectionByNameOrId': (_ctx, name: string) => hookCollection(core, name),
    'app.findRecordById': async (ctx, name: string, id: string) => {
      const c = hookCollection(core, name);
      const row = await reading(core, ctx.scope, (db) => getRow(db, c, id));
      if (!row) throw notFound();
      return wireOf(c, row);
    },
    'app.findRecordsByIds': async (ctx, name: string, ids: string[]) => {
      const c = hookCollection(core, name);
      return reading(core, ctx.scope, async (db) => {
        const out = [];
        for (const id of ids) {
          const row = await getRow(db, c, id);
          if (row) out.push(wireOf(c, row));
        }
        return out;
      });
    },
    'app.findFirstRecordByData': async (ctx, name: string, key: string, value: unknown) => {
      const [first] = await find(ctx, name, `${key} = {:value}`, '', 1, 0, { value });
      if (!first) throw notFound();
      return first;
    },
    'app.findFirstRecordByFilter': async (ctx, name: string, filter: string, params: Record<string, unknown>) => {
      const [first] = await find(ctx, name, filter, '', 1, 0, params);
      if (!first) throw notFound();
      return first;
    },
    'app.findRecordsByFilter': (ctx, name: string, filter: string, sort: string, limit: number, offset: number, params: Record<string, unknown>) =>
      find(ctx, name, filter, sort, limit, offset, params),
    'app.findAuthRecordByEmail': async (ctx, name: string, email: string) => {
      const c = hookCollection(core, name);
      if (c.type !== 'auth') throw new ApiError(400, `"${c.name}" is not an auth collection.`);
      const [first] = await find(ctx, name, 'email = {:email}', '', 1, 0, { email });
      if (!first) throw notFound();
      return first;
    },
    'app.countRecords': async (ctx, name: string, filter: string, params: Record<string, unknown>) => {
      const c = hookCollection(core, name);
      return reading(core, ctx.scope, (db) => countRecords(db, c, { filter, params }, lookup, core.internalContext().dialect));
    },
    'app.save': async (ctx, w: WireRecord, _validate: boolean) => {
      const c = hookCollection(core, w.collection.id);
      const sys = systemContext(core);
      const body = bodyOfWire(w);
      const row = w.isNew
        ? await core.records.writes.create(c, body, sys, { system: true }, undefined, ctx.scope)
        : await core.records.writes.update(c, String(w.data.id), body, sys, undefined, ctx.scope);
      return wireOf(c, row);
    },
    'app.delete': async (ctx, w: WireRecord) => {
      const c = hookCollection(core, w.collection.id);
      await core.records.writes.remove(c, String(w.data.id), systemContext(core), undefined, ctx.scope);
      return null;
    },
    'app.runInTransaction': async (ctx, callback: number) => {
      if (ctx.scope.tx) return ctx.callback(callback, ctx.scope);
      return core.records.writes.inTransaction((scope) => ctx.callback(callback, { ...ctx.scope, ...scope }), ctx.scope.stopped);
    },
    'app.expandRecord': async (ctx, w: WireRecord, expands: string[]) => {
      const c = hookCollection(core, w.collection.id);
      const sys = { ...systemContext(core), expand: core.listContext({ auth: null, method: 'GET', query: { expand: expands.join(',') }, headers: [] }).expand };
      const base = recordSerializer(c, { superuser: true, authCollectionId: SUPERUSERS_ID, authId: 'hooks' })(w.data as Row);
      const [out] = await reading(core, ctx.scope, (db) => expandRecords(db, c, [{ ...base, ...w.data }], sys));
      return { expand: (out as { expand?: unknown }).expand ?? {}, failed: {} };
    },
    'app.dataDir': () => options.dataDir ?? '',
    'app.settings': async () => core.settings.get(),
    'record.validatePassword': async (ctx, name: string, id: string, plain: string) => {
      const c = hookCollection(core, name);
      const row = await reading(core, ctx.scope, (db) => getRow(db, c, id));
      const pw = c.fields.find((f) => f.type === 'password');
      if (!row || !pw || typeof row[pw.name] !== 'string') return false;
      return core.passwords.verify(plain, String(row[pw.name]));
    },
  };
}
