// The first step of a schema import, before any SQL: which submitted collections are imported, which
// are left out (PocketBase's own system collections), and the id each one gets here. Foreign
// ids are mapped consistently: a Deskbase id (15 characters a-z0-9) is kept; a collection named like a
// stored one whose id differs (PocketBase's `users` is `_pb_users_auth_`, `_superusers` is
// `pbc_3142635823`) updates that one; any other id (`pbc_<digits>`) becomes a 15-character id derived
// from it, so importing the same file twice, anywhere, gives the same ids.
import { createHash } from 'node:crypto';
import { badRequest, fieldError } from '../../errors.js';
import { isRecord } from '../../json-object.js';
import { ID_PATTERN } from '../ids.js';
import type { Registry } from '../collection-registry.js';
import type { Collection } from '../../model/types.js';
import type { Notes } from './transfer-notes.js';

/** PocketBase's system collections for features Deskbase does not have. */
const POCKETBASE_ONLY = new Set(['_mfas', '_otps', '_externalauths', '_authorigins']);

export interface PlannedCollection {
  /** Position in the submitted list (errors are keyed by it). */
  index: number;
  raw: Record<string, unknown>;
  id: string;
  name: string;
  type: Collection['type'];
  /** The stored collection this one updates. */
  existing: Collection | undefined;
}

export interface Plan {
  items: PlannedCollection[];
  /** Foreign id or lower-case name → our id, for every imported collection. */
  ids: Map<string, string>;
}

const ALPHANUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A Deskbase id derived from a foreign one: the same foreign id always gives the same id. */
export function derivedId(foreign: string): string {
  const digest = createHash('sha256').update(`deskbase-import:${foreign}`).digest();
  let out = '';
  for (let i = 0; i < 15; i++) out += ALPHANUM[digest[i] % ALPHANUM.length];
  return out;
}

function invalid(index: number, key: string, message: string): never {
  throw badRequest(`Failed to import the submitted collections: collection ${index}: ${key}: ${message}`, {
    collections: { [String(index)]: { [key]: fieldError('validation_invalid_value', message) } },
  });
}

export function planImport(list: unknown[], registry: Registry, notes: Notes): Plan {
  const items: PlannedCollection[] = [];
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  list.forEach((raw, index) => {
    if (!isRecord(raw)) invalid(index, 'collection', 'Must be an object.');
    const name = typeof raw.name === 'string' ? raw.name : '';
    if (name === '') invalid(index, 'name', 'Cannot be blank.');
    const foreignId = typeof raw.id === 'string' ? raw.id : '';
    if (POCKETBASE_ONLY.has(name.toLowerCase())) {
      notes.add(name, 'collection', "PocketBase's bookkeeping for MFA, OTP, OAuth2 or sign-in origins; left out (Deskbase keeps its own _externalAuths).");
      return;
    }
    const type = raw.type === 'auth' || raw.type === 'view' ? raw.type : raw.type === undefined || raw.type === 'base' ? 'base' : invalid(index, 'type', 'Must be "base", "auth" or "view".');
    // the id this collection has here when it came before: its own, or the one derived from it
    const ownId = ID_PATTERN.test(foreignId) ? foreignId : derivedId(foreignId || name);
    const byId = registry.get(ownId);
    const existing = byId !== undefined && byId.id === ownId ? byId : registry.get(name);
    const id = existing?.id ?? ownId;
    if (taken.has(id)) invalid(index, 'id', `The collection is listed twice (as "${name}").`);
    if (existing && foreignId !== '' && existing.id !== ownId) {
      notes.add(name, 'id', `Matched the stored collection "${existing.name}" by name: its id stays ${existing.id} (was ${foreignId}).`);
    } else if (!existing && foreignId !== '' && foreignId !== id) {
      notes.add(name, 'id', `The id ${foreignId} became ${id} (Deskbase ids are 15 characters from a-z0-9); relations follow it.`);
    }
    taken.add(id);
    if (foreignId !== '') ids.set(foreignId, id);
    ids.set(name.toLowerCase(), id);
    items.push({ index, raw, id, name, type, existing });
  });
  return { items, ids };
}
