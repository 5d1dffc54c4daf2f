// `number`: a float. ⚠ Non-numeric strings become 0, and 0 fails `required` (PocketBase's cast and
// "required means non-zero").
import type { FieldBase, NumberField } from '../../model/types.js';
import { toNumber } from './casts.js';
import { err, minThreshold, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import type { FieldSpec } from './spec.js';

const onlyIntError = () => err('validation_only_int_constraint', 'Decimal numbers are not allowed.');

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: NumberField = sortKeys({
    ...base, type: 'number', min: r.numberOrNull('min'), max: r.numberOrNull('max'), onlyInt: r.bool('onlyInt'),
  });
  if (field.onlyInt && field.min !== null && !Number.isInteger(field.min)) r.fail('min', onlyIntError());
  if (field.onlyInt && field.max !== null && !Number.isInteger(field.max)) r.fail('max', onlyIntError());
  // PocketBase's ozzo Min skips a zero max (min 1, max 0 passes there and then refuses every non-zero
  // value); a max that is set is checked whatever its value, so no field refuses everything
  if (field.min !== null && field.max !== null && field.max < field.min) r.fail('max', minThreshold(field.min));
  return { field, errors: r.errors };
}

export const numberSpec: FieldSpec<'number'> = {
  type: 'number',
  define,
  column: () => 'NUMERIC DEFAULT 0 NOT NULL',
  normalize: (value) => toNumber(value),
  zero: () => 0,
  validate(value, field) {
    if (typeof value !== 'number') return unsupportedType();
    if (!Number.isFinite(value)) return err('validation_not_a_number', 'The submitted number is not properly formatted.');
    if (value === 0) return field.required ? required() : null;
    if (field.onlyInt && !Number.isInteger(value)) return onlyIntError();
    if (field.min !== null && value < field.min) {
      return err('validation_min_number_constraint', 'Must be greater or equal than {min}.', { min: field.min });
    }
    if (field.max !== null && value > field.max) {
      return err('validation_max_number_constraint', 'Must be less or equal than {max}.', { max: field.max });
    }
    return null;
  },
  toStored: (value) => {
    const n = toNumber(value);
    return Number.isFinite(n) ? n + 0 : 0; // + 0 turns -0 into 0
  },
  fromStored: (value) => {
    const n = toNumber(value);
    return Number.isFinite(n) ? n : 0;
  },
  modify(current, op, operand) {
    const base = toNumber(current);
    if (op === 'add') return base + toNumber(operand);
    if (op === 'subtract') return base - toNumber(operand);
    return base;
  },
};
