// Collections: the schema API (superusers only, enforced by the HTTP layer). Every change runs in
// one store transaction: the table, its indexes and the `_collections` row change together or not at all.
import { deleteAccountRows } from './account-rows.js';
import { renameRateLimitLabels } from './settings.js';
import type { CoreEnv } from './env.js';
import { badRequest, fieldError, notFound } from '../errors.js';
import type { WriteTx } from '../store/db.js';
import { defaults, superusersCollection, usersCollection } from './collections-defaults.js';
import { ensureExternalAuths } from './external-auths.js';
import { changeTable, createCollectionTable, ddlFailure, dropCollectionTable, saveDefinition } from './collections-ddl.js';
import { shownAuthOptions } from './auth-options.js';
import { buildCollection } from './collections-input.js';
import { listCollections } from './collections-list.js';
import { isoNow } from './ids.js';
import { withMaintainedIndexes } from './maintained-indexes.js';
import { pick } from './pick-fields.js';
import type { ListContext, RequestContext } from './request-context.js';
import type { Page } from './request-params.js';
import type { Collection, FileField } from '../model/types.js';
import { cutFileFields, dropCutNames, readNames, type NamesById } from './file-cleanup.js';
import { EXTERNAL_AUTHS_ID, SUPERUSERS_ID } from '../model/types.js';
import { brokenView, dropViews, rebuildViews, ViewFailure, ViewQueryError } from './views.js';

/** Hears a committed schema change (the admin UI's live collections list, through realtime). */
export type CollectionListener = (action: 'create' | 'update' | 'delete', collection: Collection) => void;

export function createCollections(env: Pick<CoreEnv, 'store' | 'dialect' | 'registry' | 'sessions' | 'storage'>, onChange: CollectionListener = () => {}) {
  const { store, dialect, registry, sessions, storage: files } = env;
  const inputContext = () => ({ lookup: registry.lookup, dialect, allCollections: () => registry.all() });

  /** Every collection as it will be: `changed` in place of its stored version, without `removedId`. */
  const schemaWith = (changed: Collection | null, removedId?: string): Collection[] => {
    const out = registry.all().filter((c) => c.id !== changed?.id && c.id !== removedId);
    if (changed) out.push(changed);
    return out;
  };

  /** A view candidate's inferred fields: every view built again over the schema with it (views.ts). */
  const viewFieldsIn = (tx: WriteTx) => async (candidate: Collection) => {
    try {
      return (await rebuildViews(tx, schemaWith(candidate), dialect)).find((c) => c.id === candidate.id)!.fields;
    } catch (err) {
      if (err instanceof ViewFailure && err.view.id !== candidate.id) throw new ViewQueryError(`the view collection "${err.view.name}" that reads it would no longer work (${err.message})`);
      throw err;
    }
  };

  /**
   * Builds every view again over the schema as it will be (their SQLite views dropped before the
   * change), stores the views whose inferred fields changed, and answers the schema; a view the
   * change breaks makes it a 400 naming the view.
   */
  async function settleViews(tx: WriteTx, schema: Collection[], action: 'create' | 'update' | 'delete'): Promise<Collection[]> {
    let rebuilt: Collection[];
    try {
      rebuilt = await rebuildViews(tx, schema, dialect);
    } catch (err) {
      if (err instanceof ViewFailure) throw brokenView(err, action);
      throw err;
    }
    return rebuilt;
  }

  /** Stores and registers the collections of `schema` that differ from the registry's (after everything succeeded). */
  async function commitSchema(tx: WriteTx, schema: Collection[]): Promise<Collection[]> {
    const changed = schema.filter((c) => JSON.stringify(registry.get(c.id)) !== JSON.stringify(c));
    for (const c of changed) await saveDefinition(dialect, tx, c);
    for (const c of changed) registry.put(c);
    return changed;
  }
  /** A collection as the schema API answers it, cut to the `fields` asked for. */
  const shown = (c: Collection, ctx: RequestContext) => pick({ ...withMaintainedIndexes(c), ...(c.type === 'auth' ? shownAuthOptions(c) : {}) }, ctx.fields);

  /** Creates the table and stores the definition (in the caller's transaction). */
  async function add(tx: WriteTx, c: Collection): Promise<void> {
    try {
      if (c.type !== 'view') await createCollectionTable(dialect, tx, c);
    } catch (err) {
      ddlFailure(dialect, err, c, false);
    }
    await saveDefinition(dialect, tx, c);
    registry.put(c);
  }

  function referencing(target: Collection): Collection[] {
    return registry.all().filter((c) => c.id !== target.id && c.fields.some((f) => f.type === 'relation' && f.collectionId === target.id));
  }

  /** The collection `idOrName` if the schema API may delete it (not a system one, nothing relating to it). */
  function deletable(idOrName: string): Collection {
    const c = registry.get(idOrName);
    if (!c) throw notFound();
    if (c.system) throw badRequest('Failed to delete collection.');
    const refs = referencing(c);
    if (refs.length > 0) {
      throw badRequest(`Failed to delete collection probably due to existing reference in ${refs.map((r) => r.name).join(', ')}.`);
    }
    return c;
  }

  /** Drops `c` in `tx`; answers what follows once `tx` committed (files, announcements). */
  async function removeIn(tx: WriteTx, c: Collection): Promise<() => void> {
    await dropViews(tx, registry.all());
    await dropCollectionTable(tx, c);
    await sessions.endCollection(tx, c.id);
    if (c.type === 'auth') await deleteAccountRows(tx, c.id);
    const schema = await settleViews(tx, schemaWith(null, c.id), 'delete');
    const others = await commitSchema(tx, schema);
    registry.remove(c.id);
    return () => {
      for (const v of others) onChange('update', v);
      files.dropCollection(c.id);
      onChange('delete', c);
    };
  }

  return {
    async list(ctx: ListContext): Promise<Page<unknown>> {
      const page = await listCollections(store, ctx);
      return { ...page, items: page.items.map((c) => shown(c, ctx)) };
    },

    get(idOrName: string, ctx: RequestContext): unknown {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      return shown(c, ctx);
    },

    async create(input: unknown, ctx: RequestContext): Promise<unknown> {
      let created: Collection | null = null;
      let others: Collection[] = [];
      const out = await store.write(async (tx) => {
        // views are dropped first and built again over the new schema (views.ts)
        await dropViews(tx, registry.all());
        const c = await buildCollection(input, { ...inputContext(), viewFields: viewFieldsIn(tx) }, defaults, isoNow());
        c.created = c.updated;
        if (registry.get(c.name) || registry.get(c.id)) throw badRequest('Failed to create collection.', { name: fieldError('validation_not_unique', 'Collection name must be unique (case insensitive).') });
        if (c.type !== 'view') await createCollectionTable(dialect, tx, c);
        const schema = await settleViews(tx, schemaWith(c), 'create');
        others = (await commitSchema(tx, schema)).filter((x) => x.id !== c.id);
        created = schema.find((x) => x.id === c.id)!;
        return shown(created, ctx);
      });
      onChange('create', created!);
      for (const v of others) onChange('update', v);
      return out;
    },

    async update(idOrName: string, input: unknown, ctx: RequestContext): Promise<unknown> {
      const prev = registry.get(idOrName);
      if (!prev) throw notFound();
      let next: Collection = prev;
      let cut: FileField[] = [];
      let before: NamesById = new Map();
      let after: NamesById = new Map();
      let others: Collection[] = [];
      const shownNext = await store.write(async (tx) => {
        // views are dropped first (SQLite cannot rebuild a table a view reads) and built again after
        await dropViews(tx, registry.all());
        const built = await buildCollection(input, { ...inputContext(), previous: prev, viewFields: viewFieldsIn(tx) }, defaults, isoNow());
        if (built.type !== 'view') {
          cut = cutFileFields(prev, built);
          // the files of removed file fields (or of items a field made single drops) go once this is durable
          before = await readNames(tx, prev, cut);
          try {
            await changeTable(dialect, tx, prev, built);
          } catch (err) {
            ddlFailure(dialect, err, built, true);
          }
          if (cut.length > 0) after = await readNames(tx, built, built.fields.filter((f): f is FileField => f.type === 'file'));
        }
        // PocketBase signs everyone out of an auth collection whose authRule changed (it regenerates the
        // collection's token secret): sessions that may no longer pass the rule end with this change
        if (built.type === 'auth' && built.authRule !== prev.authRule) await sessions.endCollection(tx, prev.id);
        await renameRateLimitLabels(tx, prev.name, built.name); // `posts:create` follows `posts` (settings.ts)
        const schema = await settleViews(tx, schemaWith(built), 'update');
        next = schema.find((x) => x.id === built.id)!;
        await saveDefinition(dialect, tx, next);
        others = (await commitSchema(tx, schema)).filter((x) => x.id !== next.id);
        registry.put(next);
        return shown(next, ctx);
      });
      if (cut.length > 0) dropCutNames(files, prev, before, after);
      onChange('update', next);
      for (const v of others) onChange('update', v);
      return shownNext;
    },

    async delete(idOrName: string): Promise<void> {
      const c = deletable(idOrName);
      let settle = () => {};
      await store.write(async (tx) => {
        settle = await removeIn(tx, c);
      });
      settle();
    },

    /**
     * Deletes a collection inside the caller's transaction `tx` (a JS migration's `app.delete`), with
     * the schema API's checks; the registry changes at once (the caller reloads it from the store if
     * `tx` rolls back), and the answer is for the caller to run once `tx` committed.
     */
    async deleteWithin(tx: WriteTx, idOrName: string): Promise<() => void> {
      return removeIn(tx, deletable(idOrName));
    },

    /**
     * Creates `_superusers` and `users` on a fresh data folder (`users` once: a user may delete it).
     * Several team-server nodes may start together on an empty database: when something looks
     * missing, the `bootstrapped` row of `_params` is taken first (an upsert: a concurrent node's
     * transaction waits here for this one) and the collections are read again inside the transaction,
     * so that only the first node creates them.
     */
    async bootstrap(tx: WriteTx): Promise<void> {
      const usersCreated = async () => (await tx.get(`SELECT 1 AS x FROM "_params" WHERE "key" = 'usersCreated'`)) !== undefined;
      if (registry.get(SUPERUSERS_ID) && registry.get(EXTERNAL_AUTHS_ID) && (registry.get('users') || await usersCreated())) return;
      await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), ['bootstrapped', 'true']);
      await registry.load(tx);
      if (!registry.get(SUPERUSERS_ID)) await add(tx, superusersCollection());
      // folders from before OAuth2 get PocketBase's system collection of links too
      await ensureExternalAuths(dialect, tx, registry);
      if (!registry.get('users') && !await usersCreated()) {
        await add(tx, usersCollection(registry.lookup));
        await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), ['usersCreated', 'true']);
      }
    },
  };
}

export type Collections = ReturnType<typeof createCollections>;
