// The domain model shared by core, rules and the store. Plain data, JSON-serialisable: a collection is
// stored as JSON in `_collections` and returned by the API as it is here.
import type { SqlValue } from '../filter/sql.js';

export type FieldType =
  | 'text'
  | 'editor'
  | 'number'
  | 'bool'
  | 'email'
  | 'url'
  | 'date'
  | 'autodate'
  | 'select'
  | 'relation'
  | 'json'
  | 'password'
  | 'geoPoint'
  | 'file';

export const FIELD_TYPES: readonly FieldType[] = [
  'text', 'editor', 'number', 'bool', 'email', 'url', 'date', 'autodate', 'select', 'relation', 'json',
  'password', 'geoPoint', 'file',
];

/** Every field carries these; type-specific options live flat beside them, as in PocketBase. */
export interface FieldBase {
  id: string;
  name: string;
  type: FieldType;
  system: boolean;
  hidden: boolean;
  presentable: boolean;
  required?: boolean;
  help?: string;
}

export interface TextField extends FieldBase { type: 'text'; min: number; max: number; pattern: string; autogeneratePattern: string; primaryKey: boolean }
export interface EditorField extends FieldBase { type: 'editor'; maxSize: number; convertURLs: boolean }
export interface NumberField extends FieldBase { type: 'number'; min: number | null; max: number | null; onlyInt: boolean }
export interface BoolField extends FieldBase { type: 'bool' }
export interface EmailField extends FieldBase { type: 'email'; exceptDomains: string[]; onlyDomains: string[] }
export interface UrlField extends FieldBase { type: 'url'; exceptDomains: string[]; onlyDomains: string[] }
export interface DateField extends FieldBase { type: 'date'; min: string; max: string }
export interface AutodateField extends FieldBase { type: 'autodate'; onCreate: boolean; onUpdate: boolean }
export interface SelectField extends FieldBase { type: 'select'; values: string[]; maxSelect: number }
export interface RelationField extends FieldBase { type: 'relation'; collectionId: string; cascadeDelete: boolean; minSelect: number; maxSelect: number }
export interface JsonField extends FieldBase { type: 'json'; maxSize: number }
export interface PasswordField extends FieldBase { type: 'password'; min: number; max: number; pattern: string; cost: number }
export interface GeoPointField extends FieldBase { type: 'geoPoint' }
/** maxSize 0 means 5 MiB per file; thumbs are the sizes `?thumb=` may ask for (100x100 always). */
export interface FileField extends FieldBase { type: 'file'; maxSelect: number; maxSize: number; mimeTypes: string[]; thumbs: string[]; protected: boolean }

export type Field =
  | TextField | EditorField | NumberField | BoolField | EmailField | UrlField | DateField | AutodateField
  | SelectField | RelationField | JsonField | PasswordField | GeoPointField | FileField;

export type FieldOf<T extends FieldType> = Extract<Field, { type: T }>;

/** Select, relation and file fields hold lists of strings (one, or several when multiple). */
export function isListField(field: Field): field is SelectField | RelationField | FileField {
  return field.type === 'select' || field.type === 'relation' || field.type === 'file';
}

/** Multiple select/relation/file means maxSelect > 1 (0 or 1 is single), as in PocketBase. */
export function isMultiple(field: Field): boolean {
  return isListField(field) && field.maxSelect > 1;
}

export interface IndexDef {
  name: string;
  /** Field ids, not names. */
  fields: string[];
  unique?: boolean;
  type?: string;
}

/** `view`: records read from a SELECT over other collections (views.ts), never written. */
export type CollectionType = 'base' | 'auth' | 'view';

export type RuleKey = 'listRule' | 'viewRule' | 'createRule' | 'updateRule' | 'deleteRule' | 'authRule' | 'manageRule';
export const RULE_KEYS: readonly RuleKey[] = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule', 'authRule', 'manageRule'];

/** PocketBase's auth collection options, in its JSON shape (what each does in Deskbase: core/auth-options.ts). */
export interface EmailTemplate { subject: string; body: string }
export interface TokenConfig { duration: number }

/** PocketBase's OAuth2ProviderConfig: `clientSecret` is stored, never answered (auth-options.ts shownAuthOptions). */
export interface OAuth2ProviderConfig {
  name: string;
  clientId: string;
  clientSecret: string;
  authURL: string;
  tokenURL: string;
  userInfoURL: string;
  displayName: string;
  /** null: the provider's default. */
  pkce: boolean | null;
  extra: Record<string, unknown> | null;
}

export interface AuthOptions {
  authAlert: { enabled: boolean; emailTemplate: EmailTemplate };
  oauth2: { enabled: boolean; mappedFields: { id: string; name: string; username: string; avatarURL: string }; providers: OAuth2ProviderConfig[] };
  passwordAuth: { enabled: boolean; identityFields: string[] };
  mfa: { enabled: boolean; duration: number; rule: string };
  otp: { enabled: boolean; duration: number; length: number; emailTemplate: EmailTemplate };
  authToken: TokenConfig;
  passwordResetToken: TokenConfig;
  emailChangeToken: TokenConfig;
  verificationToken: TokenConfig;
  fileToken: TokenConfig;
  verificationTemplate: EmailTemplate;
  resetPasswordTemplate: EmailTemplate;
  confirmEmailChangeTemplate: EmailTemplate;
}

export interface Collection extends Partial<Omit<AuthOptions, 'passwordAuth'>> {
  id: string;
  name: string;
  type: CollectionType;
  system: boolean;
  fields: Field[];
  indexes: IndexDef[];
  listRule: string | null;
  viewRule: string | null;
  createRule: string | null;
  updateRule: string | null;
  deleteRule: string | null;
  /** Auth collections only. */
  authRule?: string | null;
  manageRule?: string | null;
  /** `passwordAuth.identityFields`, as the spec names it (passwordAuth itself is not stored: always enabled). */
  identityFields?: string[];
  /** View collections only: the SELECT their records come from. */
  viewQuery?: string;
  created: string;
  updated: string;
}

/** Finds a collection by id or by name (names match case-insensitively): relations, rules, expand. */
export type Lookup = (idOrName: string) => Collection | undefined;

/** A value as stored in SQLite and bound as a parameter (owned by filter/sql.ts, where SQL is built). */
export type { SqlValue };

/** A record as read from its table: column name → stored value. */
export type Row = Record<string, SqlValue>;

/** The signed-in caller, if any. */
export interface AuthInfo {
  collection: Collection;
  /** The auth record's stored row (includes hidden columns; never serialised as is). */
  record: Row;
  sessionId: string;
}

/** What rules may read of the request (`@request.*`). */
export interface RequestInfo {
  auth: AuthInfo | null;
  method: string;
  /** `default`, `expand`, `password`, ... */
  context: string;
  /** Submitted body after modifiers are resolved. */
  body: Record<string, unknown>;
  query: Record<string, string>;
  /** Keys normalised to snake_case lower case (`X-Token` → `x_token`). */
  headers: Record<string, string>;
  /** Who shared costs (password hashes) are charged to: the client address's key; never seen by rules. */
  client?: string;
}

export function isSuperuser(auth: AuthInfo | null): boolean {
  return auth !== null && auth.collection.id === SUPERUSERS_ID;
}

export const SUPERUSERS_ID = '_superusers';
export const SUPERUSERS_NAME = '_superusers';
/** PocketBase's OAuth2 links (collections-defaults.ts externalAuthsCollection): id and name. */
export const EXTERNAL_AUTHS_ID = '_externalAuths';
