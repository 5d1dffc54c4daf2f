// Stored rows → API records. Keys are alphabetical as in PocketBase; passwords never leave the
// server; hidden fields only reach superusers; an auth record's email is shown only when
// emailVisibility is on, or to the record itself, a superuser or a manager.
import { specFor } from './fields/index.js';
import type { Collection, Field, RequestInfo, Row, SqlValue } from './types.js';
import { isSuperuser } from './types.js';

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

export function fromStored(field: Field, value: SqlValue | undefined): unknown {
  return specFor(field).fromStored(value ?? null, field);
}

export function serializeRecord(c: Collection, row: Row, viewer: Viewer): ApiRecord {
  const out: ApiRecord = { collectionId: c.id, collectionName: c.name };
  const self = viewer.authCollectionId === c.id && viewer.authId === row.id;
  for (const field of c.fields) {
    if (field.type === 'password') continue;
    if (field.hidden && !viewer.superuser) continue;
    out[field.name] = fromStored(field, row[field.name]);
  }
  if (c.type === 'auth') {
    const visible = out.emailVisibility === true || self || viewer.superuser || viewer.managed?.has(String(row.id)) === true;
    if (!visible) delete out.email;
  }
  return sortKeys(out);
}

export function sortKeys(obj: ApiRecord): ApiRecord {
  const sorted: ApiRecord = {};
  for (const key of Object.keys(obj).sort()) sorted[key] = obj[key];
  return sorted;
}
