// Stored rows → API records as one viewer sees them (record-response.ts adds expand and `fields`). Keys
// are alphabetical as in PocketBase; passwords never leave the server; hidden fields only reach
// superusers; an auth record's email is shown only when emailVisibility is on, or to the record
// itself, a superuser or a manager.
import { fromStoredValue, storedReader } from './field-values.js';
import type { Collection, Field, RequestInfo, Row } from '../model/types.js';
import { isSuperuser } from '../model/types.js';

export type ApiRecord = Record<string, unknown>;

export interface Viewer {
  superuser: boolean;
  authCollectionId: string | null;
  authId: string | null;
  /** Ids of auth records this caller manages (manageRule), for email visibility. */
  managed?: ReadonlySet<string>;
}

export function viewerOf(req: RequestInfo): Viewer {
  return {
    superuser: isSuperuser(req.auth),
    authCollectionId: req.auth?.collection.id ?? null,
    authId: req.auth ? String(req.auth.record.id) : null,
  };
}

interface OutputKey {
  key: string;
  /** null: collectionId or collectionName. */
  field: Field | null;
}

/**
 * A serializer for the rows of one collection as one viewer sees them: which fields show and the order
 * of the keys are worked out once for a whole page instead of per record (a list's records were a
 * tenth of its time, much of it sorting keys).
 */
export function recordSerializer(c: Collection, viewer: Viewer): (row: Row) => ApiRecord {
  const { keys, visibility, make } = planOf(c, viewer.superuser);
  if (make !== null) return (row) => make(row, c);
  return (row) => {
    const showEmail = c.type !== 'auth' || emailShown(c, row, viewer, visibility);
    const out: ApiRecord = {};
    for (const { key, field } of keys) {
      if (key === 'email' && !showEmail) continue;
      out[key] = field !== null ? fromStoredValue(field, row[field.name]) : key === 'collectionId' ? c.id : c.name;
    }
    return out;
  };
}

interface Plan {
  keys: OutputKey[];
  visibility: Field | null | undefined;
  /** The record made in one object literal (`literalMaker`), or null: made key by key. */
  make: ((row: Row, c: Collection) => ApiRecord) | null;
}

/**
 * Plans by fields list, for other callers and for superusers: a collection's fields list is replaced
 * whole when it changes (collections-input.ts), never changed in place, so a plan made for one list
 * holds while the collection has it.
 */
const plans = new WeakMap<readonly Field[], [Plan | undefined, Plan | undefined]>();

function planOf(c: Collection, superuser: boolean): Plan {
  let both = plans.get(c.fields);
  if (both === undefined) plans.set(c.fields, (both = [undefined, undefined]));
  const at = superuser ? 1 : 0;
  return (both[at] ??= makePlan(c, superuser));
}

function makePlan(c: Collection, superuser: boolean): Plan {
  // later fields replace earlier keys of the same name, as assigning them one by one did
  const byKey = new Map<string, Field | null>([['collectionId', null], ['collectionName', null]]);
  for (const field of shownFields(c, { superuser, authCollectionId: null, authId: null })) byKey.set(field.name, field);
  const keys: OutputKey[] = [...byKey.keys()].sort().map((key) => ({ key, field: byKey.get(key) ?? null }));
  return { keys, visibility: c.type === 'auth' ? byKey.get('emailVisibility') : undefined, make: c.type === 'auth' ? null : literalMaker(keys) };
}

/**
 * A function making a record of a collection without emails to hide in one object literal of its keys
 * (code made once per plan, each key and field name written as a JSON string literal): the stores of a
 * key-by-key loop take V8's generic path (a different key at every turn), and made the records of a list
 * about five times slower than the literal (24 against 4 µs for 30 records of 13 keys, load ~20); the
 * literal's objects share one shape, which JSON.stringify also writes faster. Null when a key is
 * `__proto__` (a literal would set the prototype).
 */
function literalMaker(keys: readonly OutputKey[]): Plan['make'] {
  if (keys.some((k) => k.key === '__proto__')) return null;
  const readers = keys.map((k) => (k.field === null ? null : storedReader(k.field)));
  const members = keys.map((k, i) => {
    const value = k.field === null ? (k.key === 'collectionId' ? 'c.id' : 'c.name') : `read[${i}](row[${JSON.stringify(k.field.name)}])`;
    return `${JSON.stringify(k.key)}: ${value}`;
  });
  const make = new Function('read', 'row', 'c', `return { ${members.join(', ')} };`) as (read: typeof readers, row: Row, c: Collection) => ApiRecord;
  return (row, c) => make(readers, row, c);
}

/** The fields a record shows this viewer: never a password, hidden ones to superusers only. */
export function shownFields(c: Collection, viewer: Viewer): Field[] {
  return c.fields.filter((field) => field.type !== 'password' && (!field.hidden || viewer.superuser));
}

function emailShown(c: Collection, row: Row, viewer: Viewer, visibility: Field | null | undefined): boolean {
  const self = viewer.authCollectionId === c.id && viewer.authId === row.id;
  const visible = visibility ? fromStoredValue(visibility, row[visibility.name]) === true : false;
  return visible || self || viewer.superuser || viewer.managed?.has(String(row.id)) === true;
}
