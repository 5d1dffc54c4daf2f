// `autodate`: set to "now" by the server on create and/or update, never from a request body. It has
// no `required` and no `help` (as in PocketBase).
import type { AutodateField, FieldBase } from '../../model/types.js';
import { err, OptionReader, sortKeys } from './common.js';
import { parseDateTime } from './datetime.js';
import type { DefineContext, FieldSpec } from './spec.js';

function define(input: Record<string, unknown>, base: FieldBase, ctx: DefineContext) {
  const r = new OptionReader(input);
  const { required: _required, help: _help, ...common } = base;
  const field: AutodateField = sortKeys({ ...common, type: 'autodate', onCreate: r.bool('onCreate'), onUpdate: r.bool('onUpdate') });
  if (!field.onCreate && !field.onUpdate) {
    const e = err('validation_required', 'Either onCreate or onUpdate must be enabled.');
    r.fail('onCreate', e);
    r.fail('onUpdate', e);
  }
  // the behaviour of a system autodate (created/updated of system collections) is fixed
  const previous = ctx.previous;
  if (field.system && previous !== undefined && previous.type === 'autodate') {
    const mismatch = err('validation_values_mismatch', "Values don't match.");
    if (field.onCreate !== previous.onCreate) r.fail('onCreate', mismatch);
    if (field.onUpdate !== previous.onUpdate) r.fail('onUpdate', mismatch);
  }
  return { field, errors: r.errors };
}

export const autodateSpec: FieldSpec<'autodate'> = {
  type: 'autodate',
  define,
  column: () => "TEXT DEFAULT '' NOT NULL",
  normalize: (value) => parseDateTime(value),
  zero: () => '',
  validate: () => null,
  toStored: (value) => parseDateTime(value),
  fromStored: (value) => parseDateTime(value),
};
