// The `indexes` of a submitted collection: names unique across every collection and not reserved for
// the indexes Deskbase maintains, at least one known field each, with PocketBase's error codes. Each
// is the spec's object or PocketBase's `CREATE [UNIQUE] INDEX` string (its JS migrations and tools send
// those; transfer/index-sql.ts reads them); the stored form, and the answer, is always the object.
import { fieldError, type ErrorData, type FieldError } from '../errors.js';
import { isRecord } from '../json-object.js';
import { isReservedIndexName } from './maintained-indexes.js';
import { indexExtras, isPocketBaseAuthIndex, parseIndexSql } from './transfer/index-sql.js';
import type { Collection, Field, IndexDef } from '../model/types.js';

/** Collection names (and index names, past leading underscores): a letter, then letters, digits, `_`. */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

const invalidSql = (message: string) => fieldError('validation_invalid_index_expression', message);

/**
 * A `CREATE INDEX` string as an index object over `fields` (its table name is ignored, as PocketBase
 * does); a FieldError for what Deskbase cannot keep (refused, never dropped), or null for PocketBase's
 * own auth indexes on `email` and `tokenKey` (Deskbase keeps its own email index and has no token key).
 */
function indexFromSql(sql: string, fields: Field[], type: Collection['type']): { index: Record<string, unknown> } | { error: FieldError } | null {
  const parsed = parseIndexSql(sql);
  if (parsed === null) return { error: invalidSql('Invalid CREATE INDEX expression.') };
  if (type === 'auth' && isPocketBaseAuthIndex(parsed)) return null;
  const extras = indexExtras(parsed);
  if (extras.length > 0) return { error: invalidSql(`Deskbase indexes are plain column indexes: ${extras.join(', ')} is not supported yet.`) };
  const ids: string[] = [];
  const unknown: string[] = [];
  for (const column of parsed.columns) {
    const field = fields.find((f) => f.name.toLowerCase() === column.name.toLowerCase());
    if (field) ids.push(field.id);
    else unknown.push(column.name);
  }
  if (unknown.length > 0) return { error: invalidSql(`Not a field of the collection: ${unknown.join(', ')} (Deskbase indexes name fields, not expressions).`) };
  return { index: { name: parsed.name, fields: ids, unique: parsed.unique } };
}

/** `others`: every stored collection (index names are unique across them all). */
export function normalizeIndexes(input: unknown, fields: Field[], others: Collection[], collectionId: string, errors: ErrorData, type: Collection['type'] = 'base'): IndexDef[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) {
    errors.indexes = fieldError('validation_invalid_value', 'Must be an array of index definitions.');
    return [];
  }
  const out: IndexDef[] = [];
  const idxErrors: ErrorData = {};
  const names = new Set<string>();
  const seenColumns = new Set<string>();
  input.forEach((item: unknown, i) => {
    const key = String(i);
    let raw = item;
    if (typeof item === 'string') {
      const read = indexFromSql(item, fields, type);
      if (read === null) return;
      if ('error' in read) {
        idxErrors[key] = read.error;
        return;
      }
      raw = read.index;
    }
    if (!isRecord(raw)) {
      idxErrors[key] = fieldError('validation_invalid_index_expression', 'Invalid index definition.');
      return;
    }
    const errs: ErrorData = {};
    const name = raw.name;
    if (typeof name !== 'string' || !NAME_PATTERN.test(name.replace(/^_+/, 'x')) || name.length > 100) {
      errs.name = fieldError('validation_required', 'A name of letters, digits and underscores is required.');
    } else if (names.has(name.toLowerCase())) {
      errs.name = fieldError('validation_duplicated_index_name', 'The index name must be unique.');
    } else {
      const owner = findIndexOwner(others, name, collectionId);
      if (owner) errs.name = fieldError('validation_existing_index_name', `The index name is already used in ${owner} collection.`);
      else if (isReservedIndexName(name, [collectionId, ...others.map((c) => c.id)], { collectionId, indexFields: Array.isArray(raw.fields) ? (raw.fields as string[]) : [], fields })) {
        errs.name = fieldError('validation_existing_index_name', 'The index name is reserved for an index Deskbase maintains.');
      }
    }
    const ids = raw.fields;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((v) => typeof v === 'string')) {
      errs.fields = fieldError('validation_required', 'Select at least one field.');
    } else {
      const unknown = ids.filter((fid) => !fields.some((f) => f.id === fid));
      if (unknown.length > 0) errs.fields = fieldError('validation_missing_field', `Unknown field ids: ${unknown.join(', ')}.`);
      if (new Set(ids).size !== ids.length) errs.fields = fieldError('validation_duplicated_index_definition', 'A field is listed twice.');
    }
    if (raw.unique !== undefined && typeof raw.unique !== 'boolean') errs.unique = fieldError('validation_invalid_value', 'Must be a boolean.');
    if (raw.type !== undefined && typeof raw.type !== 'string') errs.type = fieldError('validation_invalid_value', 'Must be a string.');
    if (Object.keys(errs).length > 0) {
      idxErrors[key] = errs;
      return;
    }
    // two indexes over the same fields (in the same order) are refused, as PocketBase does
    const columns = (ids as string[]).join('\n');
    if (seenColumns.has(columns)) {
      idxErrors[key] = { fields: fieldError('validation_duplicated_index_definition', 'Another index already covers the same fields.') };
      return;
    }
    seenColumns.add(columns);
    names.add((name as string).toLowerCase());
    const def: IndexDef = { name: name as string, fields: ids as string[], unique: raw.unique === true };
    if (typeof raw.type === 'string' && raw.type !== '') def.type = raw.type;
    out.push(def);
  });
  if (Object.keys(idxErrors).length > 0) errors.indexes = idxErrors;
  return out;
}

function findIndexOwner(others: Collection[], name: string, selfId: string): string | undefined {
  const owner = others.find((c) => c.id !== selfId && c.indexes.some((i) => i.name.toLowerCase() === name.toLowerCase()));
  return owner?.name;
}

