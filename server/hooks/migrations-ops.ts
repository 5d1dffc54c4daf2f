// The host operations behind collections in hooks and migrations (worker/migrations.cjs) and behind
// `$app.db()` (worker/db.cjs → hooks/db.ts). A collection is saved through the schema import
// (core/transfer/schema-import.ts `within`: PocketBase's JSON or Deskbase's, validated by
// core/collections-input.ts, tables changed by core/collections-ddl.ts) and deleted through
// core/collections.ts `deleteWithin`: the one owner of each, never a second validation here. Inside a
// write (a migration's transaction, a hook running in a write) the work runs in its transaction and its
// after-effects (announcements, files) wait for the commit; elsewhere it runs in a transaction of its own.
import type { Core } from '../core/index.js';
import { badRequest } from '../errors.js';
import { isRecord } from '../json-object.js';
import type { WriteTx } from '../store/db.js';
import type { EventScope } from '../core/events.js';
import { runDbQuery, type DbQuery } from './db.js';
import type { HookLogger, HostOps, OpContext } from './runtime.js';
import { hookCollection, POCKETBASE_USERS_ID } from './app-ops.js';
import { derivedId } from '../core/transfer/schema-plan.js';
import type { Collection } from '../model/types.js';

/** Runs `work` in the scope's transaction (its after-effects staged for the commit), or in one of its own. */
async function inWrite<T>(core: Core, scope: EventScope, work: (tx: WriteTx) => Promise<{ value: T; settle: () => void }>): Promise<T> {
  if (scope.tx) {
    const { value, settle } = await work(scope.tx);
    if (scope.afterCommit) scope.afterCommit.push(settle);
    else settle();
    // a rolled-back write takes the schema it put in memory with it
    scope.afterRollback?.push(() => core.registry.load(core.store));
    return value;
  }
  let done: { value: T; settle: () => void } | null = null;
  try {
    await core.store.write(async (tx) => {
      done = await work(tx);
    });
  } catch (err) {
    await core.registry.load(core.store); // the schema the failed work put in memory goes with it
    throw err;
  }
  const { value, settle } = done as unknown as { value: T; settle: () => void };
  settle();
  return value;
}

/** The stored collection of id `id` (ours, PocketBase's `_pb_users_auth_`, or the id a `pbc_…` became), never by name. */
function storedById(core: Core, id: unknown): Collection | undefined {
  if (typeof id !== 'string' || id === '') return undefined;
  const direct = core.registry.get(id);
  if (direct?.id === id) return direct;
  if (id === POCKETBASE_USERS_ID) return core.registry.get('users');
  const derived = core.registry.get(derivedId(id));
  return derived?.id === derivedId(id) ? derived : undefined;
}

/** A collection as hooks get it, as stored now (the same as `$app.findCollectionByNameOrId` answers). */
const answered = (core: Core, idOrName: string) => hookCollection(core, idOrName);

export function collectionOps(core: Core, log: HookLogger): HostOps {
  const importWithin = core.transfer.importSchema.within;
  return {
    'collections.save': (ctx: OpContext, data: unknown) => {
      if (!isRecord(data)) throw badRequest('$app.save(collection): not a collection.');
      // a collection without a stored id is a new one, as in PocketBase: its name must be free (the
      // schema import would update the stored collection of that name instead)
      const name = String(data.name ?? '');
      if (storedById(core, data.id) === undefined && core.registry.get(name) !== undefined) {
        throw badRequest(`Failed to save collection "${name}": name: Collection name must be unique (case insensitive).`);
      }
      return inWrite(core, ctx.scope, async (tx) => {
        const { result, settle } = await importWithin(tx, { collections: [data], deleteMissing: false });
        // what the import would leave out or change is refused here: the file asked for exactly this collection
        // (a PocketBase id given a Deskbase one is no change: relations and lookups follow it)
        const refused = result.notes.filter((n) => n.warning !== true && n.item !== 'id');
        if (refused.length > 0) throw badRequest(`Failed to save collection "${String(data.name ?? '')}": ${refused.map((n) => `${n.item}: ${n.reason}`).join(' ')}`);
        const id = result.changes[0]?.id;
        return { value: answered(core, id ?? String(data.name ?? '')), settle };
      });
    },
    'collections.delete': (ctx: OpContext, idOrName: unknown) => {
      const c = hookCollection(core, String(idOrName ?? ''));
      return inWrite(core, ctx.scope, async (tx) => ({ value: null, settle: await core.collections.deleteWithin(tx, c.id) }));
    },
    // a snapshot (PocketBase's `migrate collections`) is imported as the schema import takes it: what it
    // leaves out (PocketBase-only system collections, OAuth2 providers...) is logged, as its notes say
    'collections.import': (ctx: OpContext, list: unknown, deleteMissing: unknown) =>
      inWrite(core, ctx.scope, async (tx) => {
        const { result, settle } = await importWithin(tx, { collections: list, deleteMissing: deleteMissing === true });
        for (const n of result.notes) log({ level: 'WARN', message: `importCollections: ${n.collection === '*' ? '' : `${n.collection}: `}${n.item}: ${n.reason}`, data: {} });
        return { value: null, settle };
      }),
    'db.query': (ctx: OpContext, query: DbQuery) =>
      runDbQuery({ store: core.store, dialect: core.dialect, tx: ctx.scope.tx ?? null, stopped: ctx.scope.stopped }, query),
  };
}
