// Collections in PocketBase's own export format (v0.23+), written here by hand after its
// core/collection_model.go and core/field_*.go: `pbc_<crc32>` ids, `_pb_users_auth_`, field ids of
// the `<type><crc32>` form, indexes as CREATE INDEX strings, auth options Deskbase lacks.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SAMPLES = join(import.meta.dirname, '..', '..', '..', 'shared', 'pocketbase-samples');

/** A sample app schema from shared/, or null where shared/ is not beside the repository. */
export function sampleSchema(app: 'beszel' | 'upsnap' | 'wanderer'): Record<string, unknown>[] | null {
  const file = join(SAMPLES, 'app-schemas', `${app}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[]) : null;
}

const idField = { autogeneratePattern: '[a-z0-9]{15}', hidden: false, id: 'text3208210256', max: 15, min: 15, name: 'id', pattern: '^[a-z0-9]+$', presentable: false, primaryKey: true, required: true, system: true, type: 'text' };
const created = { hidden: false, id: 'autodate2990389176', name: 'created', onCreate: true, onUpdate: false, presentable: false, system: false, type: 'autodate' };
const updated = { hidden: false, id: 'autodate3332085495', name: 'updated', onCreate: true, onUpdate: true, presentable: false, system: false, type: 'autodate' };

export const pbUsers = {
  id: '_pb_users_auth_', name: 'users', type: 'auth', system: false,
  listRule: 'id = @request.auth.id', viewRule: 'id = @request.auth.id', createRule: '', updateRule: 'id = @request.auth.id', deleteRule: 'id = @request.auth.id',
  authRule: '', manageRule: null,
  authAlert: { enabled: true, emailTemplate: { subject: 'Login from a new location', body: '...' } },
  oauth2: { enabled: true, mappedFields: { id: '', name: 'name', username: '', avatarURL: 'avatar' }, providers: [{ name: 'google', clientId: 'x', displayName: 'Google' }] },
  passwordAuth: { enabled: true, identityFields: ['email'] },
  mfa: { enabled: false, duration: 1800, rule: '' },
  otp: { enabled: false, duration: 180, length: 8, emailTemplate: { subject: 'OTP', body: '...' } },
  authToken: { duration: 604800 },
  fields: [
    idField,
    { cost: 0, hidden: true, id: 'password901924565', max: 0, min: 8, name: 'password', pattern: '', presentable: false, required: true, system: true, type: 'password' },
    { autogeneratePattern: '[a-zA-Z0-9]{50}', hidden: true, id: 'text2504183744', max: 60, min: 30, name: 'tokenKey', pattern: '', presentable: false, primaryKey: false, required: true, system: true, type: 'text' },
    { exceptDomains: null, hidden: false, id: 'email3885137012', name: 'email', onlyDomains: null, presentable: false, required: true, system: true, type: 'email' },
    { hidden: false, id: 'bool1547992806', name: 'emailVisibility', presentable: false, required: false, system: true, type: 'bool' },
    { hidden: false, id: 'bool256245529', name: 'verified', presentable: false, required: false, system: true, type: 'bool' },
    { autogeneratePattern: '', hidden: false, id: 'text1579384326', max: 255, min: 0, name: 'name', pattern: '', presentable: false, primaryKey: false, required: false, system: false, type: 'text' },
    { hidden: false, id: 'file376926767', maxSelect: 1, maxSize: 0, mimeTypes: ['image/jpeg'], name: 'avatar', presentable: false, protected: false, required: false, system: false, thumbs: null, type: 'file' },
    created, updated,
  ],
  indexes: [
    'CREATE UNIQUE INDEX `idx_tokenKey__pb_users_auth_` ON `users` (`tokenKey`)',
    "CREATE UNIQUE INDEX `idx_email__pb_users_auth_` ON `users` (`email`) WHERE `email` != ''",
  ],
};

export const pbPosts = {
  id: 'pbc_1125843985', name: 'posts', type: 'base', system: false,
  listRule: '', viewRule: '', createRule: '@request.auth.id != ""', updateRule: 'author = @request.auth.id', deleteRule: 'author = @request.auth.id && cover != ""',
  fields: [
    idField,
    { autogeneratePattern: '', hidden: false, id: 'text724990059', max: 0, min: 0, name: 'title', pattern: '', presentable: true, primaryKey: false, required: true, system: false, type: 'text' },
    { cascadeDelete: false, collectionId: '_pb_users_auth_', hidden: false, id: 'relation3182418120', maxSelect: 1, minSelect: 0, name: 'author', presentable: false, required: false, system: false, type: 'relation' },
    { hidden: false, id: 'select2063623452', maxSelect: 1, name: 'status', presentable: false, required: false, system: false, type: 'select', values: ['draft', 'published'] },
    { cascadeDelete: false, collectionId: 'pbc_1125843985', hidden: false, id: 'relation1032740943', maxSelect: 999, minSelect: 0, name: 'related', presentable: false, required: false, system: false, type: 'relation' },
    { hidden: false, id: 'file3834550803', maxSelect: 1, maxSize: 0, mimeTypes: [], name: 'cover', presentable: false, protected: false, required: false, system: false, thumbs: [], type: 'file' },
    { hidden: false, id: 'file1204091606', maxSelect: 5, maxSize: 0, mimeTypes: [], name: 'attachments', presentable: false, protected: false, required: false, system: false, thumbs: [], type: 'file' },
    { hidden: false, id: 'number2245608546', max: null, min: 0, name: 'views', onlyInt: true, presentable: false, required: false, system: false, type: 'number' },
    created, updated,
  ],
  indexes: [
    'CREATE INDEX `idx_posts_status` ON `posts` (\n  `status`,\n  `views`\n)',
    'CREATE INDEX `idx_posts_lower` ON `posts` (LOWER(`title`))',
  ],
};

export const pbView = { id: 'pbc_999', name: 'post_counts', type: 'view', system: false, viewQuery: 'SELECT id, 1 AS n FROM posts', fields: [], indexes: [], listRule: null, viewRule: null };
export const pbMfas = { id: 'pbc_2279338944', name: '_mfas', type: 'base', system: true, fields: [idField], indexes: [] };
