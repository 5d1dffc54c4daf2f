// What a new collection starts with: PocketBase's defaults (rules locked, no indexes), the system
// fields every collection and every auth collection has, and the two collections a fresh data folder
// gets (`_superusers`, `users`, and PocketBase's system `_externalAuths`: OAuth2 links).
import { defaultAuthOptions } from './auth-options.js';
import { defineField } from './fields/index.js';
import { autodateField, authSystemFields, primaryKeyField } from './fields/system-fields.js';
import type { Defaults } from './collections-input.js';
import { isoNow, newId } from './ids.js';
import type { Collection, Field, Lookup } from '../model/types.js';
import { EXTERNAL_AUTHS_ID, SUPERUSERS_ID, SUPERUSERS_NAME } from '../model/types.js';

export const defaults: Defaults = {
  newCollection(type, name, id, withTimestamps) {
    const now = isoNow();
    const fields: Field[] = withTimestamps && type !== 'view' ? [autodateField('created', false), autodateField('updated', false)] : [];
    const c: Collection = {
      id: id || newId(), name, type, system: false,
      fields: defaults.withSystemFields(type, fields),
      indexes: [],
      listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null,
      created: now, updated: now,
    };
    // PocketBase's new auth collections (theirs and `users`, `_superusers`) have the new-device alert on;
    // a collection stored without the option (older folders) reads it off (auth-options.ts)
    if (type === 'auth') Object.assign(c, { authRule: '', manageRule: null, identityFields: ['email'], authAlert: { ...defaultAuthOptions().authAlert, enabled: true } });
    if (type === 'view') Object.assign(c, { viewQuery: '' });
    return c;
  },
  withSystemFields(type, fields) {
    // a view's fields are its query's columns (views.ts)
    if (type === 'view') return fields;
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

/** The superusers' collection: system, every rule locked. */
export function superusersCollection(): Collection {
  const su = defaults.newCollection('auth', SUPERUSERS_NAME, SUPERUSERS_ID, true);
  su.system = true;
  return su;
}

/** PocketBase's starter `users` collection: a name, timestamps, each user sees and changes only itself. */
export function usersCollection(lookup: Lookup): Collection {
  const users = defaults.newCollection('auth', 'users', '', false);
  const nameField = defineField({ name: 'name', type: 'text', max: 255 }, 0, { collectionType: 'auth', lookup }).field;
  // PocketBase's default users have an avatar too (its init migration): apps upload to `avatar` as they are
  const avatarField = defineField(
    { name: 'avatar', type: 'file', maxSelect: 1, maxSize: 5_242_880, mimeTypes: ['image/jpeg', 'image/png', 'image/svg+xml', 'image/gif', 'image/webp'] },
    1,
    { collectionType: 'auth', lookup },
  ).field;
  users.fields = [...defaults.withSystemFields('auth', []), nameField, avatarField, autodateField('created', false), autodateField('updated', false)];
  const self = 'id = @request.auth.id';
  Object.assign(users, { listRule: self, viewRule: self, createRule: '', updateRule: self, deleteRule: self });
  return users;
}

/**
 * PocketBase's `_externalAuths` (core/external_auth_model.go): one row per OAuth2 link of an auth
 * record (collectionRef, recordRef) to a provider's account (provider, providerId); its owner lists,
 * views and deletes (unlinks) its own; links are made only by auth-with-oauth2 (core/oauth2.ts).
 */
export function externalAuthsCollection(lookup: Lookup): Collection {
  const c = defaults.newCollection('base', EXTERNAL_AUTHS_ID, EXTERNAL_AUTHS_ID, true);
  c.system = true;
  const text = (name: string, i: number) => ({ ...defineField({ name, type: 'text', required: true, system: true }, i, { collectionType: 'base', lookup }).field, system: true });
  const [id, ...rest] = c.fields;
  c.fields = [id!, text('collectionRef', 1), text('recordRef', 2), text('provider', 3), text('providerId', 4), ...rest];
  const own = "@request.auth.id != '' && recordRef = @request.auth.id && collectionRef = @request.auth.collectionId";
  Object.assign(c, { listRule: own, viewRule: own, deleteRule: own, createRule: null, updateRule: null });
  const ids = (...names: string[]) => names.map((n) => c.fields.find((f) => f.name === n)!.id);
  c.indexes = [
    { name: 'idx_externalAuths_record_provider', unique: true, fields: ids('collectionRef', 'recordRef', 'provider') },
    { name: 'idx_externalAuths_collection_provider', unique: true, fields: ids('collectionRef', 'provider', 'providerId') },
  ];
  return c;
}
