// Indexes Deskbase makes and keeps by itself, beside the user's `indexes` (which stay exactly what the
// user defined, so a schema exported to PocketBase carries only those). They are created, rebuilt,
// renamed and dropped with the table in the same transaction as every other schema change
// (collections-ddl.ts), reported to superusers as `maintainedIndexes`, and added on start to data
// folders made before one of them existed.
import type { WriteTx } from '../store/db.js';
import { ident } from '../filter/sql.js';
import type { Dialect } from '../rules/compile.js';
import type { Collection, Field } from '../model/types.js';

/** Why Deskbase keeps the index: sign-in by email (unique), or the default `-created` sort of lists. */
export type MaintainedPurpose = 'email' | 'defaultSort';

export interface MaintainedIndex {
  name: string;
  /** Field ids, like a user index definition. */
  fields: string[];
  unique: boolean;
  purpose: MaintainedPurpose;
}

/** A collection as the schema API shows it to superusers: the stored definition plus its maintained indexes. */
export type CollectionView = Collection & { maintainedIndexes: MaintainedIndex[] };

/**
 * The field lists sort by when the client gives no sort: `created`, when the collection has it (the
 * spec's default `-created`); otherwise lists follow insertion order.
 */
export function defaultSortField(c: Collection): Field | undefined {
  return createdField(c.fields);
}

const createdField = (fields: readonly Field[]): Field | undefined => fields.find((f) => f.name === 'created');

// named after the collection id, so that renaming the collection keeps the names (see isReservedIndexName)
export const emailIndexName = (c: Collection): string => `_${c.id}_email_idx`;
const createdIndexName = (c: Collection): string => `_${c.id}_created_idx`;

export function maintainedIndexes(c: Collection): MaintainedIndex[] {
  const out: MaintainedIndex[] = [];
  if (c.type === 'view') return out; // a view has no table to index
  const email = c.type === 'auth' ? c.fields.find((f) => f.name === 'email') : undefined;
  if (email) out.push({ name: emailIndexName(c), fields: [email.id], unique: true, purpose: 'email' });
  const created = defaultSortField(c);
  // Every list without a sort orders by created: without an index that is a full scan and a sort of
  // every row on each request. A user index starting with the field
  // serves the same order, so none is added beside it.
  if (created && !c.indexes.some((i) => i.fields[0] === created.id)) {
    out.push({ name: createdIndexName(c), fields: [created.id], unique: false, purpose: 'defaultSort' });
  }
  return out;
}

export function maintainedIndexSql(dialect: Dialect, c: Collection, index: MaintainedIndex): string {
  if (index.purpose === 'email') {
    // emails are unique case-insensitively (ASCII letters, as sign-in's dialect.equalsNoCase compares), when set
    return `CREATE UNIQUE INDEX ${ident(index.name)} ON ${ident(c.name)} (${dialect.noCaseKey('"email"')}) WHERE "email" != ''`;
  }
  const field = c.fields.find((f) => f.id === index.fields[0]);
  if (!field) throw new Error(`maintained index ${index.name} names unknown field ${index.fields[0]}`);
  if (dialect.indexSql !== undefined) return dialect.indexSql(c.name, index, [field.name]);
  return `CREATE INDEX ${ident(index.name)} ON ${ident(c.name)} (${ident(field.name)})`;
}

/**
 * Whether a user index name is one Deskbase keeps for a collection among `collectionIds` (whether that
 * index exists yet or not: adding a `created` field later must not collide with the user's index).
 * `own` is the index being defined: a collection's own index that starts with its `created` field may
 * take the name of the created index, which it replaces (no maintained one is made beside it); older
 * PocketBase versions made `_<id>_created_idx` themselves, and apps ship it in their schema.
 */
export function isReservedIndexName(name: string, collectionIds: string[], own?: { collectionId: string; indexFields: string[]; fields: readonly Field[] }): boolean {
  const m = /^_(.+)_(email|created)_idx$/i.exec(name);
  if (m === null || !collectionIds.some((id) => id.toLowerCase() === m[1].toLowerCase())) return false;
  const replacesCreated = own !== undefined && m[2].toLowerCase() === 'created' && own.collectionId.toLowerCase() === m[1].toLowerCase()
    && own.indexFields[0] !== undefined && own.indexFields[0] === createdField(own.fields)?.id;
  return !replacesCreated;
}

export function withMaintainedIndexes(c: Collection): CollectionView {
  return { ...c, maintainedIndexes: maintainedIndexes(c) };
}

/**
 * On start: creates the maintained indexes a data folder lacks (made by a version that did not keep
 * them yet), in one journaled transaction. Only non-unique ones: they cannot fail on existing data,
 * and the unique email index has been made with every auth collection from the start.
 */
export async function addMissingMaintainedIndexes(dialect: Dialect, tx: WriteTx, collections: Collection[]): Promise<number> {
  const missing = async () => {
    const out: { c: Collection; index: MaintainedIndex }[] = [];
    for (const c of collections) {
      const present = new Set((await tx.all<{ name: string }>(dialect.indexNames, [dialect.storedName(c.name)])).map((r) => r.name));
      for (const index of maintainedIndexes(c)) if (!index.unique && !present.has(dialect.storedName(index.name))) out.push({ c, index });
    }
    return out;
  };
  if ((await missing()).length === 0) return 0;
  // team-server nodes starting together on one database: the `_params` row makes the second wait for the
  // first's transaction, then it looks again (and finds the indexes made), as the first start's bootstrap
  // does (collections.ts); on the desktop the write is alone anyway
  await tx.run(dialect.upsert('_params', ['key', 'value'], ['key']), ['maintainedIndexes', 'checked']);
  const left = await missing();
  for (const { c, index } of left) await tx.run(maintainedIndexSql(dialect, c, index));
  return left.length;
}
