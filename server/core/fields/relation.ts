// `relation`: ids of records of one other collection (or of the same one).
import type { FieldBase, RelationField } from '../../model/types.js';
import { err, minThreshold, OptionReader, required, sortKeys, unsupportedType } from './common.js';
import { itemsOf, modifyMulti, multiFromStored, multiColumn, multiToStored, multiZero, normalizeMulti } from './multi-value.js';
import type { DefineContext, FieldSpec } from './spec.js';

function define(input: Record<string, unknown>, base: FieldBase, ctx: DefineContext) {
  const r = new OptionReader(input);
  const submitted = r.string('collectionId');
  // a collection name is accepted too, but the id is what gets stored
  const target = submitted === '' ? undefined : ctx.lookup(submitted);
  const field: RelationField = sortKeys({
    ...base,
    type: 'relation',
    collectionId: target?.id ?? submitted,
    cascadeDelete: r.bool('cascadeDelete'),
    minSelect: r.int('minSelect'),
    maxSelect: r.int('maxSelect', 1),
  });
  const previous = ctx.previous?.type === 'relation' ? ctx.previous : undefined;
  if (submitted === '') r.fail('collectionId', required());
  else if (previous !== undefined && previous.collectionId !== field.collectionId) {
    r.fail('collectionId', err('validation_field_relation_change', 'The relation collection cannot be changed.'));
  } else if (target === undefined) {
    r.fail('collectionId', err('validation_field_relation_missing_collection', "The relation collection doesn't exist."));
  } else if (target.type === 'view' && ctx.collectionType !== 'view') {
    // PocketBase: only views may relate to views (a view's records come and go with its query)
    r.fail('collectionId', err('validation_relation_field_non_view_base_collection', 'Non view collections are not allowed to have a view relation.'));
  }
  if (field.minSelect < 0) r.fail('minSelect', minThreshold(0));
  // PocketBase requires maxSelect once minSelect is set (a missing one would default to a single value)
  const maxGiven = input.maxSelect !== undefined && input.maxSelect !== null && input.maxSelect !== 0;
  if (field.minSelect > 0 && (!maxGiven || field.maxSelect === 0)) r.fail('maxSelect', required());
  else if (field.maxSelect !== 0 && field.maxSelect < field.minSelect) r.fail('maxSelect', minThreshold(field.minSelect));
  return { field, errors: r.errors };
}

export const relationSpec: FieldSpec<'relation'> = {
  type: 'relation',
  define,
  column: multiColumn,
  normalize: normalizeMulti,
  zero: multiZero,
  async validate(value, field, ctx) {
    if (typeof value !== 'string' && !Array.isArray(value)) return unsupportedType();
    const ids = itemsOf(value);
    if (ids.length === 0) return field.required ? required() : null;
    if (field.minSelect > 0 && ids.length < field.minSelect) {
      return err('validation_not_enough_values', 'Select at least {minSelect}.', { minSelect: field.minSelect });
    }
    const maxSelect = Math.max(field.maxSelect, 1);
    if (ids.length > maxSelect) return err('validation_too_many_values', 'Select no more than {maxSelect}.', { maxSelect });
    if ((await ctx.missingRelationIds(field.collectionId, ids)).length > 0) {
      return err('validation_missing_rel_records', 'Failed to find all relation records with the provided ids.');
    }
    return null;
  },
  toStored: multiToStored,
  fromStored: multiFromStored,
  modify: modifyMulti,
};
