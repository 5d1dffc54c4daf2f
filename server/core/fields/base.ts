// The props every field carries (id, name, type, system, hidden, presentable, required, help), checked
// as PocketBase's DefaultFieldIdValidationRule / DefaultFieldNameValidationRule do.
import { crc32 } from 'node:zlib';
import type { ErrorData, FieldError } from '../../errors.js';
import { FIELD_TYPES, type CollectionType, type FieldBase, type FieldType } from '../../model/types.js';
import { err, lengthError, OptionReader, required, runeLength, unsupportedType } from './common.js';
import { isRecord } from '../../json-object.js';

/** Filter literals and the record's dynamic keys: a field with such a name could never be addressed. */
export const RESERVED_FIELD_NAMES: readonly string[] = ['null', 'true', 'false', '_rowid_', 'collectionId', 'collectionName', 'expand'];
/**
 * Names of Object.prototype's members (`__proto__`, `constructor`, `toString`, ...): records, bodies
 * and rule inputs are JavaScript objects keyed by field name, where such a key reads an inherited
 * member or, for `__proto__`, cannot be set at all, so a field with one of these names is refused.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
/** Body keys of auth records that would clash with a field (`validation_reserved_field_name`). */
export const RESERVED_AUTH_FIELD_NAMES: readonly string[] = ['passwordConfirm', 'oldPassword'];

const NAME_RE = /^\w+$/;
const TYPE_ALIASES: Readonly<Record<string, FieldType>> = { boolean: 'bool' };

/** PocketBase's default field id: the type followed by the decimal CRC32 (IEEE) of the name. */
export function defaultFieldId(type: string, name: string): string {
  return `${type}${crc32(name)}`;
}

/** The submitted `type`, with `boolean` accepted for `bool`; null when unknown. */
export function resolveFieldType(value: unknown): FieldType | null {
  if (typeof value !== 'string') return null;
  const type = TYPE_ALIASES[value] ?? value;
  return (FIELD_TYPES as readonly string[]).includes(type) ? (type as FieldType) : null;
}

export interface FieldBaseOptions {
  /** Ids already taken in the list: a derived id gets PocketBase's numeric suffix (2..999) on collision. */
  usedIds?: ReadonlySet<string>;
  /** In auth collections `passwordConfirm` and `oldPassword` are reserved names. */
  collectionType?: CollectionType;
}

export interface FieldBaseResult {
  base: FieldBase;
  /** Keyed by prop (`name`, `id`, `type`, `help`...); empty when valid. */
  errors: ErrorData;
}

/**
 * Checks and fills the common props of one submitted field definition. `index` is the field's position
 * in the submitted list; errors are keyed by prop only, the caller nests them under `fields.<index>`.
 */
export function defineFieldBase(input: unknown, index = 0, options: FieldBaseOptions = {}): FieldBaseResult {
  void index; // part of the shared signature; the position does not change any rule
  const raw = isRecord(input) ? input : {};
  const r = new OptionReader(raw);
  const type = resolveFieldType(raw.type);
  if (type === null) r.fail('type', raw.type === undefined || raw.type === '' ? required() : err('validation_in_invalid', 'Must be a valid value.'));
  const name = r.string('name');
  r.fail('name', checkName(name, options.collectionType));
  const base: FieldBase = {
    id: fieldId(r, raw.id, type ?? 'text', name, options.usedIds),
    name,
    type: type ?? 'text',
    system: r.bool('system'),
    hidden: r.bool('hidden'),
    presentable: r.bool('presentable'),
    required: r.bool('required'),
    help: r.string('help'),
  };
  if (base.help !== undefined && runeLength(base.help) > 300) r.fail('help', lengthError(0, 300));
  return { base, errors: r.errors };
}

function fieldId(r: OptionReader, value: unknown, type: string, name: string, used: ReadonlySet<string> = new Set()): string {
  if (typeof value === 'string' && value !== '') {
    if (value.length > 100) r.fail('id', lengthError(1, 100));
    return value;
  }
  if (value !== undefined && value !== null && value !== '') r.fail('id', unsupportedType());
  const baseId = defaultFieldId(type, name);
  let id = baseId;
  for (let i = 2; i < 1000 && used.has(id); i++) id = `${baseId}${i}`;
  return id;
}

/** PocketBase's field name rules, in its order: required, length, pattern, reserved, `_via_`. */
export function checkName(name: string, collectionType?: CollectionType): FieldError | null {
  if (name === '') return required();
  if (runeLength(name) > 100) return lengthError(1, 100);
  if (!NAME_RE.test(name)) return err('validation_match_invalid', 'Must be in a valid format.');
  // SQLite matches column names case-insensitively: a column `_ROWID_` would hide the row id that
  // lists sort, page and join on
  if (RESERVED_FIELD_NAMES.includes(name) || name.toLowerCase() === '_rowid_') return err('validation_not_in_invalid', 'Must not be in list.');
  if (PROTOTYPE_NAMES.has(name)) return err('validation_not_in_invalid', 'The name is reserved (a built-in property of JavaScript objects).');
  if (name.toLowerCase().includes('_via_')) return err('validation_found_via', 'The value cannot contain "_via_".');
  if (collectionType === 'auth' && RESERVED_AUTH_FIELD_NAMES.includes(name)) {
    return err('validation_reserved_field_name', 'The field name is reserved and cannot be used.');
  }
  return null;
}
