// The fields the service adds itself: every collection's `id` primary key, the auth system fields and
// the default `created`/`updated` autodates. The primary key's id is `_id` (the API contract: "The primary key
// field has id `_id`"); the others are PocketBase's `<type><crc32(name)>` (password901924565, email3885137012, bool1547992806, bool256245529, autodate2990389176, autodate3332085495).
// Each call returns fresh objects, so callers may change them.
import type { AutodateField, BoolField, EmailField, Field, PasswordField, TextField } from '../../model/types.js';
import { defaultFieldId } from './base.js';
import { sortKeys } from './common.js';
import { AUTH_PASSWORD_MIN } from './password.js';
import { DEFAULT_ID_PATTERN, ID_AUTOGENERATE } from './text.js';

const common = (type: Field['type'], name: string) => ({
  id: defaultFieldId(type, name), name, system: true, hidden: false, presentable: false,
});

export function primaryKeyField(): TextField {
  return sortKeys({
    ...common('text', 'id'), id: '_id', type: 'text', help: '', required: true, primaryKey: true,
    min: 15, max: 15, pattern: DEFAULT_ID_PATTERN, autogeneratePattern: ID_AUTOGENERATE,
  });
}

export function passwordField(): PasswordField {
  return sortKeys({
    ...common('password', 'password'), type: 'password', hidden: true, help: '', required: true,
    min: AUTH_PASSWORD_MIN, max: 0, pattern: '', cost: 0,
  });
}

export function emailField(): EmailField {
  return sortKeys({ ...common('email', 'email'), type: 'email', help: '', required: true, exceptDomains: [], onlyDomains: [] });
}

function systemBool(name: string): BoolField {
  return sortKeys({ ...common('bool', name), type: 'bool', help: '', required: false });
}

export const emailVisibilityField = (): BoolField => systemBool('emailVisibility');
export const verifiedField = (): BoolField => systemBool('verified');

/** password, email, emailVisibility, verified: in PocketBase's order (no tokenKey: sessions are server-side). */
export function authSystemFields(): Field[] {
  return [passwordField(), emailField(), emailVisibilityField(), verifiedField()];
}

/**
 * The default `created` (set on create) or `updated` (set on create and update) autodate. The spec has the
 * service's own fields marked `system`; pass `system: false` for ones that users may remove.
 */
export function autodateField(name: 'created' | 'updated', system = true): AutodateField {
  return sortKeys({ ...common('autodate', name), system, type: 'autodate', onCreate: true, onUpdate: name === 'updated' });
}

export const createdField = (system = true): AutodateField => autodateField('created', system);
