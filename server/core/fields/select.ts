// `select`: one or more of a fixed list of string values.
import type { FieldBase, SelectField } from '../../model/types.js';
import { err, maxThreshold, minThreshold, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { itemsOf, modifyMulti, multiFromStored, multiColumn, multiToStored, multiZero, normalizeMulti } from './multi-value.js';
import type { FieldSpec } from './spec.js';

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: SelectField = sortKeys({ ...base, type: 'select', values: r.stringList('values'), maxSelect: r.int('maxSelect', 1) });
  if (field.values.length === 0) r.fail('values', required());
  const max = Math.max(field.values.length, 1);
  if (field.maxSelect < 0) r.fail('maxSelect', minThreshold(0));
  else if (field.maxSelect > max) r.fail('maxSelect', maxThreshold(max));
  return { field, errors: r.errors };
}

export const selectSpec: FieldSpec<'select'> = {
  type: 'select',
  define,
  column: multiColumn,
  normalize: normalizeMulti,
  zero: multiZero,
  validate(value, field) {
    if (typeof value !== 'string' && !Array.isArray(value)) return unsupportedType();
    const items = itemsOf(value);
    if (items.length === 0) return field.required ? required() : null;
    const maxSelect = Math.max(field.maxSelect, 1);
    if (items.length > maxSelect) return err('validation_too_many_values', 'Select no more than {maxSelect}.', { maxSelect });
    const invalid = items.find((v) => !field.values.includes(v));
    return invalid === undefined ? null : err('validation_invalid_value', 'Invalid value {value}.', { value: invalid });
  },
  toStored: multiToStored,
  fromStored: multiFromStored,
  modify: modifyMulti,
};
