// Collections: the schema API (superusers only, enforced by the HTTP layer). Every change runs in
// one store transaction: the table, its indexes and the `_collections` row change together or not at all.
import { ApiError, badRequest, fieldError, notFound, type ErrorData } from '../errors.js';
import type { Store, WriteTx } from '../store/db.js';
import { autodateField, authSystemFields, defineField, primaryKeyField } from './fields/index.js';
import { buildCollection, type Defaults } from './collections-input.js';
import { createCollectionTable, dropIndexes, rebuildTable, createIndexes } from './collections-ddl.js';
import { newId, isoNow } from './ids.js';
import type { Registry } from './registry.js';
import type { Sessions } from './sessions.js';
import { ident } from '../filter/sql.js';
import type { Collection, Field } from './types.js';
import { listCollections } from './collections-list.js';
import { withMaintainedIndexes } from './maintained-indexes.js';
import type { Page } from './request-params.js';
import { pick } from './pick-fields.js';
import type { ListContext, RequestContext } from './request-context.js';
import { SUPERUSERS_ID, SUPERUSERS_NAME } from './types.js';

export const defaults: Defaults = {
  newCollection(type, name, id, withTimestamps) {
    const now = isoNow();
    const fields: Field[] = withTimestamps ? [autodateField('created', false), autodateField('updated', false)] : [];
    const c: Collection = {
      id: id || newId(), name, type, system: false,
      fields: defaults.withSystemFields(type, fields),
      indexes: [],
      listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null,
      created: now, updated: now,
    };
    if (type === 'auth') Object.assign(c, { authRule: '', manageRule: null, identityFields: ['email'] });
    return c;
  },
  withSystemFields(type, fields) {
    // system fields submitted on create are taken as the system versions, in the submitted place
    const out = [...fields];
    const system = [primaryKeyField() as Field, ...(type === 'auth' ? authSystemFields() : [])];
    let at = 0;
    for (const sys of system) {
      const i = out.findIndex((f) => f.name === sys.name);
      if (i >= 0) out[i] = sys;
      else out.splice(at++, 0, sys);
    }
    return out;
  },
};

/** Field and index definitions only; rules and names can change without touching the table. */
function tableShape(c: Collection): string {
  return JSON.stringify([c.fields.map((f) => ({ ...f, help: undefined, presentable: undefined, hidden: undefined, required: undefined })), c.indexes]);
}

function saveRow(tx: WriteTx, c: Collection): void {
  tx.run('INSERT OR REPLACE INTO "_collections" ("id", "name", "data") VALUES (?, ?, ?)', [c.id, c.name, JSON.stringify(c)]);
}

/** Maps a failing DDL statement (typically a unique index over duplicates) to a 400. */
function ddlFailure(err: unknown, c: Collection, update: boolean): never {
  if (err instanceof ApiError) throw err;
  const message = err instanceof Error ? err.message : String(err);
  const m = /UNIQUE constraint failed|index/i.test(message);
  const data: ErrorData = {};
  if (m && c.indexes.length > 0) data.indexes = fieldError('validation_invalid_index_expression', `Failed to create the index: ${message}`);
  throw badRequest(`${update ? 'Failed to update collection' : 'Failed to create collection'}. Raw error: ${message}`, data);
}

export function createCollections(store: Store, registry: Registry, sessions: Sessions) {
  const inputContext = () => ({ lookup: registry.lookup, allCollections: () => registry.all() });

  function referencing(target: Collection): Collection[] {
    return registry.all().filter((c) => c.id !== target.id && c.fields.some((f) => f.type === 'relation' && f.collectionId === target.id));
  }

  return {
    list(ctx: ListContext): Page<unknown> {
      const page = listCollections(store, ctx);
      return { ...page, items: page.items.map((c) => pick(withMaintainedIndexes(c), ctx.fields)) };
    },

    get(idOrName: string, ctx: RequestContext): unknown {
      const c = registry.get(idOrName);
      if (!c) throw notFound();
      return pick(withMaintainedIndexes(c), ctx.fields);
    },

    async create(input: unknown, ctx: RequestContext): Promise<unknown> {
      const c = buildCollection(input, inputContext(), defaults, isoNow());
      c.created = c.updated;
      return store.write((tx) => {
        if (registry.get(c.name) || registry.get(c.id)) throw badRequest('Failed to create collection.', { name: fieldError('validation_not_unique', 'Collection name must be unique (case insensitive).') });
        try {
          createCollectionTable(tx, c);
        } catch (err) {
          ddlFailure(err, c, false);
        }
        saveRow(tx, c);
        registry.put(c);
        return pick(withMaintainedIndexes(c), ctx.fields);
      });
    },

    async update(idOrName: string, input: unknown, ctx: RequestContext): Promise<unknown> {
      const prev = registry.get(idOrName);
      if (!prev) throw notFound();
      const next = buildCollection(input, { ...inputContext(), previous: prev }, defaults, isoNow());
      return store.write((tx) => {
        try {
          if (next.name !== prev.name) tx.run(`ALTER TABLE ${ident(prev.name)} RENAME TO ${ident(next.name)}`);
          if (tableShape(next) !== tableShape(prev)) {
            const renamed = { ...prev, name: next.name };
            dropIndexes(tx, next.name);
            rebuildTable(tx, renamed, next);
          } else if (next.name !== prev.name) {
            dropIndexes(tx, next.name);
            createIndexes(tx, next);
          }
        } catch (err) {
          ddlFailure(err, next, true);
        }
        // PocketBase signs everyone out of an auth collection whose authRule changed (it regenerates the
        // collection's token secret): sessions that may no longer pass the rule end with this change
        if (next.type === 'auth' && next.authRule !== prev.authRule) sessions.endCollection(tx, prev.id);
        saveRow(tx, next);
        registry.put(next);
        return pick(withMaintainedIndexes(next), ctx.fields);
      });
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
        tx.run(`DROP TABLE ${ident(c.name)}`);
        tx.run('DELETE FROM "_collections" WHERE "id" = ?', [c.id]);
        sessions.endCollection(tx, c.id);
        registry.remove(c.id);
      });
    },

    /** Creates `_superusers` and `users` on a fresh data folder. */
    bootstrap(tx: WriteTx): void {
      const now = isoNow();
      if (!registry.get(SUPERUSERS_ID)) {
        const su = defaults.newCollection('auth', SUPERUSERS_NAME, SUPERUSERS_ID, true);
        su.system = true;
        su.created = su.updated = now;
        createCollectionTable(tx, su);
        saveRow(tx, su);
        registry.put(su);
      }
      if (!registry.get('users') && !tx.get(`SELECT 1 AS x FROM "_params" WHERE "key" = 'usersCreated'`)) {
        const users = defaults.newCollection('auth', 'users', '', false);
        const nameField = defineField({ name: 'name', type: 'text', max: 255 }, 0, { collectionType: 'auth', lookup: registry.lookup }).field;
        users.fields = [...defaults.withSystemFields('auth', []), nameField, autodateField('created', false), autodateField('updated', false)];
        const self = 'id = @request.auth.id';
        Object.assign(users, { listRule: self, viewRule: self, createRule: '', updateRule: self, deleteRule: self, created: now, updated: now });
        createCollectionTable(tx, users);
        saveRow(tx, users);
        registry.put(users);
        tx.run(`INSERT OR REPLACE INTO "_params" ("key", "value") VALUES ('usersCreated', 'true')`);
      }
    },
  };
}

export type Collections = ReturnType<typeof createCollections>;
