// Field validation of a record about to be written, and the mapping of SQLite's unique-constraint
// errors back to the field that broke them (`validation_not_unique`).
import { fieldError, type ErrorData } from '../../errors.js';
import type { ReadDb } from '../../store/db.js';
import { specFor } from '../fields/index.js';
import { emailIndexName } from '../maintained-indexes.js';
import { storeFailure } from '../store-failures.js';
import type { ValidateContext } from '../fields/spec.js';
import { ident } from '../../filter/sql.js';
import type { Collection, Lookup } from '../../model/types.js';

export function validationContext(db: ReadDb, lookup: Lookup, isNew: boolean, current: Record<string, unknown> | null = null): ValidateContext {
  return {
    isNew,
    current,
    async missingRelationIds(collectionId, ids) {
      const target = lookup(collectionId);
      if (!target) return ids;
      if (ids.length === 0) return [];
      const found = new Set(
        (await db.all<{ id: string }>(`SELECT "id" FROM ${ident(target.name)} WHERE "id" IN (${ids.map(() => '?').join(',')})`, ids)).map((r) => r.id),
      );
      return ids.filter((id) => !found.has(id));
    },
  };
}

/** Validates the fields named in `which` (all fields when null) of a complete record. */
export async function validateFields(c: Collection, record: Record<string, unknown>, which: Set<string> | null, ctx: ValidateContext): Promise<ErrorData> {
  const errors: ErrorData = {};
  for (const field of c.fields) {
    if (field.type === 'autodate' || field.type === 'password') continue;
    if (which !== null && !which.has(field.name)) continue;
    const checked = specFor(field).validate(record[field.name], field, ctx);
    // only a relation's check queries the store: the others answer at once, without a turn of the microtask queue
    const err = checked instanceof Promise ? await checked : checked;
    if (err) errors[field.name] = err;
  }
  return errors;
}

/**
 * The field names a failed unique index or key names (store-failures.ts reads the store's error);
 * `storedName`: an index's name as the engine stores it (dialect.storedName).
 */
export function uniqueViolationFields(c: Collection, err: unknown, storedName: (name: string) => string): string[] | null {
  const failure = storeFailure(err);
  if (failure?.kind !== 'unique') return null;
  const index = failure.index;
  if (index !== undefined) {
    if (index === storedName(emailIndexName(c))) return ['email'];
    const def = c.indexes.find((i) => storedName(i.name) === index);
    if (def) return def.fields.map((fid) => c.fields.find((f) => f.id === fid)?.name ?? fid);
    if (failure.columns === undefined) return [];
  }
  return (failure.columns ?? []).map((col) => c.fields.find((f) => storedName(f.name) === col)?.name ?? col);
}

export function notUniqueErrors(fields: string[]): ErrorData {
  const data: ErrorData = {};
  for (const name of fields) data[name] = fieldError('validation_not_unique', 'Value must be unique.');
  return data;
}
