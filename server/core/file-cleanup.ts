// Files are deleted only once the write that stopped naming them is durable: record deletes (cascades
// included), values replaced or removed, fields removed or made single, collections deleted. Record
// writes are heard on the change feed (durable, in commit order); schema changes report their drops
// themselves (collections.ts) after their transaction is durable.
import type { FileStorage } from '../files/storage.js';
import type { WriteTx } from '../store/db.js';
import { ident } from '../filter/sql.js';
import { fromStoredValue } from './field-values.js';
import { fileNames } from './fields/file.js';
import type { ChangeListener } from './writes/changes.js';
import type { Collection, FileField, Row } from '../model/types.js';
import { isMultiple } from '../model/types.js';

const fileFields = (c: Collection): FileField[] => c.fields.filter((f): f is FileField => f.type === 'file');

/** The names a stored row holds in one file field. */
export const storedNames = (f: FileField, row: Row | null | undefined): string[] => (row ? fileNames(fromStoredValue(f, row[f.name])) : []);

/** Every name a stored row holds, over its file fields. */
export function namesOfRow(c: Collection, row: Row): Set<string> {
  return new Set(fileFields(c).flatMap((f) => storedNames(f, row)));
}

/** The change listener: each durable change drops the names its row had before and not after. */
export function dropReleasedFiles(files: FileStorage): ChangeListener {
  return (changes) => {
    for (const change of changes) {
      if (change.before === null) continue;
      const kept = change.after ? namesOfRow(change.collection, change.after) : new Set<string>();
      const dropped = [...namesOfRow(change.collection, change.before)].filter((n) => !kept.has(n));
      files.drop(change.collection.id, String(change.before.id), dropped);
    }
  };
}

/** Per record id, the file names of the fields a schema change touches. */
export type NamesById = Map<string, Set<string>>;

/** File fields of `prev` whose values a change to `next` may cut: removed, retyped or made single. */
export function cutFileFields(prev: Collection, next: Collection): FileField[] {
  return fileFields(prev).filter((f) => {
    const after = next.fields.find((n) => n.id === f.id);
    return after === undefined || after.type !== 'file' || (isMultiple(f) && !isMultiple(after));
  });
}

/** Reads the names `fields` hold in every row of `c` (inside the schema change's transaction). */
export async function readNames(tx: WriteTx, c: Collection, fields: readonly FileField[]): Promise<NamesById> {
  const out: NamesById = new Map();
  if (fields.length === 0) return out;
  const rows = await tx.all<Row>(`SELECT "id", ${fields.map((f) => ident(f.name)).join(', ')} FROM ${ident(c.name)}`);
  for (const row of rows) out.set(String(row.id), new Set(fields.flatMap((f) => storedNames(f, row))));
  return out;
}

/** After the schema change is durable: drops the names a record held before and none of its fields holds now. */
export function dropCutNames(files: FileStorage, c: Collection, before: NamesById, after: NamesById): void {
  for (const [id, names] of before) {
    const kept = after.get(id) ?? new Set<string>();
    files.drop(c.id, id, [...names].filter((n) => !kept.has(n)));
  }
}
