// Collections: the schema API (superusers only, enforced by the HTTP layer). Every change runs in
// one store transaction: the table, its indexes and the `_collections` row change together or not at all.
import { badRequest, fieldError, notFound } from '../errors.js';
import type { Store, WriteTx } from '../store/db.js';
import { defaults, superusersCollection, usersCollection } from './collections-defaults.js';
import { changeTable, createCollectionTable, ddlFailure, dropCollectionTable, saveDefinition } from './collections-ddl.js';
import { authOptionsOf } from './auth-options.js';
import { buildCollection } from './collections-input.js';
import { listCollections } from './collections-list.js';
import { isoNow } from './ids.js';
import { withMaintainedIndexes } from './maintained-indexes.js';
import { pick } from './pick-fields.js';
import type { Registry } from './collection-registry.js';
import type { ListContext, RequestContext } from './request-context.js';
import type { Page } from './request-params.js';
import type { Sessions } from './session-store.js';
import type { Collection, FileField } from './types.js';
import type { FileStorage } from '../files/storage.js';
import { cutFileFields, dropCutNames, readNames, type NamesById } from './file-cleanup.js';
import { SUPERUSERS_ID } from './types.js';

/** Hears a committed schema change (the admin UI's live collections list, through realtime). */
export type CollectionListener = (action: 'create' | 'update' | 'delete', collection: Collection) => void;

export function createCollections(store: Store, registry: Registry, sessions: Sessions, files: FileStorage, onChange: CollectionListener = () => {}) {
  const inputContext = () => ({ lookup: registry.lookup, allCollections: () => registry.all() });
  /** A collection as the schema API answers it, cut to the `fields` asked for. */
  const shown = (c: Collection, ctx: RequestContext) => pick({ ...withMaintainedIndexes(c), ...(c.type === 'auth' ? authOptionsOf(c) : {}) }, ctx.fields);

  /** Creates the table and stores the definition (in the caller's transaction). */
  function add(tx: WriteTx, c: Collection): void {
    try {
      createCollectionTable(tx, c);
    } catch (err) {
      ddlFailure(err, c, false);
    }
    saveDefinition(tx, c);
    registry.put(c);
  }

  function referencing(target: Collection): Collection[] {
    return registry.all().filter((c) => c.id !== target.id && c.fields.some((f) => f.type === 'relation' && f.collectionId === target.id));
  }

  return {
    list(ctx: ListContext): Page<unknown> {
      const page = listCollections(store, ctx);
      return { ...page, items: page.items.map((c) => shown(c, ctx)) };
    },

    get(idOrName: string, ctx: RequestContext): unknown {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      return shown(c, ctx);
    },

    async create(input: unknown, ctx: RequestContext): Promise<unknown> {
      const c = buildCollection(input, inputContext(), defaults, isoNow());
      c.created = c.updated;
      const out = await store.write((tx) => {
        if (registry.get(c.name) || registry.get(c.id)) throw badRequest('Failed to create collection.', { name: fieldError('validation_not_unique', 'Collection name must be unique (case insensitive).') });
        add(tx, c);
        return shown(c, ctx);
      });
      onChange('create', c);
      return out;
    },

    async update(idOrName: string, input: unknown, ctx: RequestContext): Promise<unknown> {
      const prev = registry.get(idOrName);
      if (!prev) throw notFound();
      const next = buildCollection(input, { ...inputContext(), previous: prev }, defaults, isoNow());
      const cut = cutFileFields(prev, next);
      let before: NamesById = new Map();
      let after: NamesById = new Map();
      const shownNext = await store.write((tx) => {
        // the files of removed file fields (or of items a field made single drops) go once this is durable
        before = readNames(tx, prev, cut);
        try {
          changeTable(tx, prev, next);
        } catch (err) {
          ddlFailure(err, next, true);
        }
        if (cut.length > 0) after = readNames(tx, next, next.fields.filter((f): f is FileField => f.type === 'file'));
        // PocketBase signs everyone out of an auth collection whose authRule changed (it regenerates the
        // collection's token secret): sessions that may no longer pass the rule end with this change
        if (next.type === 'auth' && next.authRule !== prev.authRule) sessions.endCollection(tx, prev.id);
        saveDefinition(tx, next);
        registry.put(next);
        return shown(next, ctx);
      });
      dropCutNames(files, prev, before, after);
      onChange('update', next);
      return shownNext;
    },

    async delete(idOrName: string): Promise<void> {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      if (c.system) throw badRequest('Failed to delete collection.');
      const refs = referencing(c);
      if (refs.length > 0) {
        throw badRequest(`Failed to delete collection probably due to existing reference in ${refs.map((r) => r.name).join(', ')}.`);
      }
      await store.write((tx) => {
        dropCollectionTable(tx, c);
        sessions.endCollection(tx, c.id);
        registry.remove(c.id);
      });
      files.dropCollection(c.id);
      onChange('delete', c);
    },

    /** Creates `_superusers` and `users` on a fresh data folder (`users` once: a user may delete it). */
    bootstrap(tx: WriteTx): void {
      if (!registry.get(SUPERUSERS_ID)) add(tx, superusersCollection());
      if (!registry.get('users') && !tx.get(`SELECT 1 AS x FROM "_params" WHERE "key" = 'usersCreated'`)) {
        add(tx, usersCollection(registry.lookup));
        tx.run(`INSERT OR REPLACE INTO "_params" ("key", "value") VALUES ('usersCreated', 'true')`);
      }
    },
  };
}

export type Collections = ReturnType<typeof createCollections>;
