// Common field props: ids, names, types, flags (PocketBase's field rules).
import { describe, expect, it } from 'vitest';
import { defaultFieldId, defineFieldBase } from '../../server/core/fields/base.js';
import { defineField, FIELD_SPECS } from '../../server/core/fields/index.js';
import { FIELD_TYPES } from '../../server/model/types.js';

const codeOf = (e: unknown): unknown => (e as { code?: unknown } | undefined)?.code;

describe('defineFieldBase: ids', () => {
  it.each([
    [{ name: 'id', type: 'text' }, 'text3208210256'],
    [{ name: 'created', type: 'autodate' }, 'autodate2990389176'],
    [{ name: 'updated', type: 'autodate' }, 'autodate3332085495'],
    [{ name: 'password', type: 'password' }, 'password901924565'],
    [{ name: 'email', type: 'email' }, 'email3885137012'],
    [{ name: 'verified', type: 'boolean' }, 'bool256245529'],
    [{ name: 'emailVisibility', type: 'bool' }, 'bool1547992806'],
    [{ name: 'where', type: 'geoPoint' }, `geoPoint${defaultFieldId('', 'where')}`],
    [{ name: 'x', type: 'text', id: 'custom_1' }, 'custom_1'],
    [{ name: 'id', type: 'text', id: '' }, 'text3208210256'],
  ])('%j → id %s', (input, id) => {
    const { base, errors } = defineFieldBase(input, 0);
    expect(errors).toEqual({});
    expect(base.id).toBe(id);
  });

  it('adds a numeric suffix to a derived id already in use, as PocketBase does', () => {
    const used = new Set(['text3208210256', 'text32082102562']);
    expect(defineFieldBase({ name: 'id', type: 'text' }, 3, { usedIds: used }).base.id).toBe('text32082102563');
  });

  it.each([
    [{ name: 'a', type: 'text', id: 'x'.repeat(101) }, 'validation_length_out_of_range'],
    [{ name: 'a', type: 'text', id: 5 }, 'validation_unsupported_value_type'],
  ])('rejects the id of %j', (input, code) => {
    expect(codeOf(defineFieldBase(input, 0).errors.id)).toBe(code);
  });
});

describe('defineFieldBase: names', () => {
  it.each([
    ['', 'validation_required', 'Cannot be blank.'],
    ['has space', 'validation_match_invalid', 'Must be in a valid format.'],
    ['dash-ed', 'validation_match_invalid', 'Must be in a valid format.'],
    ['Ünicode', 'validation_match_invalid', 'Must be in a valid format.'],
    ['x'.repeat(101), 'validation_length_out_of_range', 'The length must be between 1 and 100.'],
    ['null', 'validation_not_in_invalid', 'Must not be in list.'],
    ['true', 'validation_not_in_invalid', 'Must not be in list.'],
    ['false', 'validation_not_in_invalid', 'Must not be in list.'],
    ['_rowid_', 'validation_not_in_invalid', 'Must not be in list.'],
    ['_ROWID_', 'validation_not_in_invalid', 'Must not be in list.'], // SQLite names are case-insensitive
    ['collectionId', 'validation_not_in_invalid', 'Must not be in list.'],
    ['collectionName', 'validation_not_in_invalid', 'Must not be in list.'],
    ['expand', 'validation_not_in_invalid', 'Must not be in list.'],
    ['posts_via_author', 'validation_found_via', 'The value cannot contain "_via_".'],
    ['a_VIA_b', 'validation_found_via', 'The value cannot contain "_via_".'],
  ])('%j → %s', (name, code, message) => {
    expect(defineFieldBase({ name, type: 'text' }, 0).errors.name).toMatchObject({ code, message });
  });

  it('reports the bounds of the length rule as params', () => {
    expect(defineFieldBase({ name: 'x'.repeat(101), type: 'text' }, 0).errors.name).toMatchObject({ params: { min: 1, max: 100 } });
  });

  it.each([['x'.repeat(100)], ['_under'], ['a1_B2']])('accepts %j', (name) => {
    expect(defineFieldBase({ name, type: 'text' }, 0).errors).toEqual({});
  });

  it('reserves passwordConfirm and oldPassword in auth collections only', () => {
    for (const name of ['passwordConfirm', 'oldPassword']) {
      expect(defineFieldBase({ name, type: 'text' }, 0, { collectionType: 'auth' }).errors.name).toMatchObject({
        code: 'validation_reserved_field_name',
        message: 'The field name is reserved and cannot be used.',
      });
      expect(defineFieldBase({ name, type: 'text' }, 0, { collectionType: 'base' }).errors).toEqual({});
    }
  });
});

describe('defineFieldBase: type and flags', () => {
  it.each([
    [{ name: 'a' }, 'type', 'validation_required'],
    [{ name: 'a', type: 'view' }, 'type', 'validation_in_invalid'],
    [{ name: 'a', type: 'Text' }, 'type', 'validation_in_invalid'],
    [{ name: 'a', type: 'text', system: 'yes' }, 'system', 'validation_unsupported_value_type'],
    [{ name: 'a', type: 'text', hidden: 1 }, 'hidden', 'validation_unsupported_value_type'],
    [{ name: 'a', type: 'text', presentable: 'true' }, 'presentable', 'validation_unsupported_value_type'],
    [{ name: 'a', type: 'text', required: 0 }, 'required', 'validation_unsupported_value_type'],
    [{ name: 'a', type: 'text', help: 'x'.repeat(301) }, 'help', 'validation_length_too_long'],
    [{ name: 'a', type: 'text', help: 7 }, 'help', 'validation_unsupported_value_type'],
  ])('%j → %s %s', (input, key, code) => {
    expect(codeOf(defineFieldBase(input, 0).errors[key])).toBe(code);
  });

  it('fills the flags and help with their defaults', () => {
    expect(defineFieldBase({ name: 'a', type: 'boolean', hidden: true, help: 'Hi' }, 0).base).toEqual({
      id: defaultFieldId('bool', 'a'), name: 'a', type: 'bool', system: false, hidden: true, presentable: false, required: false, help: 'Hi',
    });
  });

  it('reports help over 300 characters with its bounds', () => {
    expect(defineFieldBase({ name: 'a', type: 'text', help: 'x'.repeat(301) }, 0).errors.help).toEqual({
      code: 'validation_length_too_long', message: 'The length must be no more than 300.', params: { min: 0, max: 300 },
    });
  });
});

describe('defineField', () => {
  const ctx = { collectionType: 'base' as const, lookup: () => undefined };

  it('gives a spec for every field type', () => {
    expect(Object.keys(FIELD_SPECS).sort()).toEqual([...FIELD_TYPES].sort());
    for (const type of FIELD_TYPES) expect(FIELD_SPECS[type].type).toBe(type);
  });

  it('returns a complete definition with alphabetical keys, as PocketBase serialises fields', () => {
    const { field, errors } = defineField({ name: 'title', type: 'text', max: 200 }, 0, ctx);
    expect(errors).toEqual({});
    expect(Object.keys(field)).toEqual([...Object.keys(field)].sort());
    expect(field).toEqual({
      autogeneratePattern: '', help: '', hidden: false, id: 'text724990059', max: 200, min: 0, name: 'title', pattern: '',
      presentable: false, primaryKey: false, required: false, system: false, type: 'text',
    });
  });

  it('merges the common-prop errors with the option errors, the common prop winning', () => {
    const { errors } = defineField({ name: 'x', type: 'text', primaryKey: true, required: true, pattern: 'a', min: -1 }, 0, ctx);
    expect(codeOf(errors.name)).toBe('validation_in_invalid');
    expect(codeOf(errors.min)).toBe('validation_min_greater_equal_than_required');
    const both = defineField({ name: 'expand', type: 'text', primaryKey: true, required: true, pattern: 'a' }, 0, ctx);
    expect(codeOf(both.errors.name)).toBe('validation_not_in_invalid');
  });

  it('finds the previous definition by the (derived) id', () => {
    const previous = { ...FIELD_SPECS.relation.define({ collectionId: 'a' }, defineFieldBase({ name: 'r', type: 'relation' }).base, {
      collectionType: 'base', lookup: (x) => (x === 'a' ? { id: 'a' } as never : undefined),
    }).field };
    const lookup = (x: string) => (x === 'a' || x === 'b' ? ({ id: x } as never) : undefined);
    const { errors } = defineField({ name: 'r', type: 'relation', collectionId: 'b' }, 0, { collectionType: 'base', lookup }, (id) =>
      id === previous.id ? previous : undefined,
    );
    expect(codeOf(errors.collectionId)).toBe('validation_field_relation_change');
  });
});
