// `password`: the normalised value is the plain password, which is what `validate` checks; the record
// code hashes it (scrypt, off the event loop) and stores the hash, so `toStored` takes the hash as is.
// The stored hash never reads back: `fromStored` gives "" as PocketBase's getter does for saved records.
import type { FieldError } from '../../errors.js';
import type { FieldBase, PasswordField } from '../../model/types.js';
import { TEXT_STORAGE } from './casts.js';
import {
  checkIntRange, checkRegex, err, OptionReader, required, runeLength, sortKeys, unsupportedType,
} from './common.js';
import { matchesPattern } from './pattern.js';
import type { DefineContext, FieldSpec } from './spec.js';

/** bcrypt's 72-byte limit made PocketBase cap passwords at 71 characters; kept for compatibility. */
export const PASSWORD_MAX = 71;
/** The minimum length of auth collections' passwords when none is given. */
export const AUTH_PASSWORD_MIN = 8;

function define(input: Record<string, unknown>, base: FieldBase, ctx: DefineContext) {
  const r = new OptionReader(input);
  const field: PasswordField = sortKeys({
    ...base,
    type: 'password',
    min: r.int('min', ctx.collectionType === 'auth' ? AUTH_PASSWORD_MIN : 0),
    max: r.int('max'),
    pattern: r.string('pattern'),
    cost: r.int('cost'),
  });
  checkIntRange(r, 'min', field.min, 1, PASSWORD_MAX);
  checkIntRange(r, 'max', field.max, Math.max(field.min, 0), PASSWORD_MAX);
  checkIntRange(r, 'cost', field.cost, 4, 31); // bcrypt's MinCost/MaxCost; unused by scrypt
  checkRegex(r, 'pattern', field.pattern);
  return { field, errors: r.errors };
}

/** The one check of a plain password (records, setup): required, length in characters, pattern. */
export function validatePassword(value: string, field: PasswordField): FieldError | null {
  if (value === '') return field.required ? required() : null;
  const max = field.max > 0 ? field.max : PASSWORD_MAX;
  const length = runeLength(value, Math.max(max, field.min));
  if (length < field.min) return err('validation_min_text_constraint', 'Must be at least {min} character(s).', { min: field.min });
  if (length > max) return err('validation_max_text_constraint', 'Must be less than {max} character(s).', { max });
  if (field.pattern !== '' && !matchesPattern(field.pattern, value)) return err('validation_invalid_format', 'Invalid value format.');
  return null;
}

export const passwordSpec: FieldSpec<'password'> = {
  type: 'password',
  ...TEXT_STORAGE,
  define,
  validate: (value, field) => (typeof value === 'string' ? validatePassword(value, field) : unsupportedType()),
  fromStored: () => '',
};
