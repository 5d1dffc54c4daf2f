// `bool`: stored 0/1. ⚠ A required bool must be true (PocketBase's "required" means non-zero).
import type { BoolField, FieldBase } from '../../model/types.js';
import { toBool } from './casts.js';
import { OptionReader, required, sortKeys, unsupportedType } from './common.js';
import type { FieldSpec } from './spec.js';

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: BoolField = sortKeys({ ...base, type: 'bool' });
  return { field, errors: r.errors };
}

export const boolSpec: FieldSpec<'bool'> = {
  type: 'bool',
  define,
  column: () => 'BOOLEAN DEFAULT FALSE NOT NULL',
  normalize: (value) => toBool(value),
  zero: () => false,
  validate(value, field) {
    if (typeof value !== 'boolean') return unsupportedType();
    return field.required && !value ? required() : null;
  },
  toStored: (value) => (toBool(value) ? 1 : 0),
  fromStored: (value) => toBool(value),
};
