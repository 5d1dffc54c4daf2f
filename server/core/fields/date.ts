// `date`: an ISO datetime string, "" when empty. ⚠ Unparsable input silently becomes "" (PocketBase).
import type { DateField, FieldBase } from '../../model/types.js';
import { err, maxThreshold, minThreshold, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { parseDateTime } from './datetime.js';
import type { FieldSpec } from './spec.js';

function readDate(r: OptionReader, key: 'min' | 'max'): string {
  const raw = r.string(key);
  const parsed = parseDateTime(raw);
  if (raw !== '' && parsed === '') r.fail(key, err('validation_date_invalid', 'Must be a valid date.'));
  return parsed;
}

function define(input: Record<string, unknown>, base: FieldBase) {
  const r = new OptionReader(input);
  const field: DateField = sortKeys({ ...base, type: 'date', min: readDate(r, 'min'), max: readDate(r, 'max') });
  if (field.min !== '' && field.max !== '' && field.max < field.min) {
    r.fail('max', err('validation_date_out_of_range', 'The date is out of range.'));
  }
  return { field, errors: r.errors };
}

export const dateSpec: FieldSpec<'date'> = {
  type: 'date',
  define,
  column: () => "TEXT DEFAULT '' NOT NULL",
  normalize: (value) => parseDateTime(value),
  zero: () => '',
  validate(value, field) {
    if (typeof value !== 'string') return unsupportedType();
    if (value === '') return field.required ? required() : null;
    // ISO strings in one format compare like the instants they name
    if (field.min !== '' && value < field.min) return minThreshold(field.min);
    if (field.max !== '' && value > field.max) return maxThreshold(field.max);
    return null;
  },
  toStored: (value) => parseDateTime(value),
  fromStored: (value) => parseDateTime(value),
};
