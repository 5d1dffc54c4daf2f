// Field options: defaults and every option error (PocketBase's field options).
import { describe, expect, it } from 'vitest';
import type { ErrorData } from '../../server/errors.js';
import { defineFieldBase } from '../../server/core/fields/base.js';
import { FIELD_SPECS } from '../../server/core/fields/index.js';
import type { DefineContext, FieldSpec } from '../../server/core/fields/spec.js';
import type { Collection, CollectionType, Field, FieldType } from '../../server/model/types.js';

const posts: Collection = {
  id: 'pbc_posts_00001', name: 'posts', type: 'base', system: false, fields: [], indexes: [],
  listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null, created: '', updated: '',
};
const tags: Collection = { ...posts, id: 'pbc_tags_000001', name: 'tags' };
const lookup = (idOrName: string) => [posts, tags].find((c) => c.id === idOrName || c.name === idOrName);

function define(type: string, options: Record<string, unknown> = {}, extra: Partial<DefineContext> & { collectionType?: CollectionType } = {}) {
  const input = { name: 'f', type, ...options };
  const { base } = defineFieldBase(input);
  const spec = FIELD_SPECS[base.type] as FieldSpec<FieldType>;
  return spec.define(input, base, { collectionType: 'base', lookup, ...extra });
}

const at = (errors: ErrorData, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], errors);

describe('define: defaults', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['text', {}, { min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false, required: false, help: '' }],
    ['editor', {}, { maxSize: 0, convertURLs: false }],
    ['number', {}, { min: null, max: null, onlyInt: false }],
    ['bool', {}, { type: 'bool', required: false }],
    ['boolean', {}, { type: 'bool' }],
    ['email', {}, { exceptDomains: [], onlyDomains: [] }],
    ['url', {}, { exceptDomains: [], onlyDomains: [] }],
    ['date', {}, { min: '', max: '' }],
    ['date', { min: '2024-01-01', max: '2024-12-31 23:59:59.000Z' }, { min: '2024-01-01T00:00:00.000Z', max: '2024-12-31T23:59:59.000Z' }],
    ['autodate', { onCreate: true }, { onCreate: true, onUpdate: false }],
    ['select', { values: ['a', 'b'] }, { values: ['a', 'b'], maxSelect: 1 }],
    ['select', { values: ['a', 'b'], maxSelect: 0 }, { maxSelect: 0 }],
    ['relation', { collectionId: 'posts' }, { collectionId: 'pbc_posts_00001', cascadeDelete: false, minSelect: 0, maxSelect: 1 }],
    ['relation', { collectionId: 'pbc_tags_000001', maxSelect: 5, cascadeDelete: true }, { collectionId: 'pbc_tags_000001', maxSelect: 5, cascadeDelete: true }],
    ['json', {}, { maxSize: 0 }],
    ['password', {}, { min: 0, max: 0, pattern: '', cost: 0 }],
    ['geoPoint', {}, { type: 'geoPoint', hidden: false, system: false, presentable: false }],
  ])('%s %j → %j', (type, options, expected) => {
    const { field, errors } = define(type, options);
    expect(errors).toEqual({});
    expect(field).toMatchObject(expected);
  });

  it('gives auth collections a password minimum of 8', () => {
    expect(define('password', {}, { collectionType: 'auth' }).field).toMatchObject({ min: 8 });
    expect(define('password', { min: 12 }, { collectionType: 'auth' }).field).toMatchObject({ min: 12 });
  });

  it('leaves required and help out of autodate, which has neither', () => {
    const { field } = define('autodate', { onUpdate: true, required: true, help: 'x' });
    expect(field).not.toHaveProperty('required');
    expect(field).not.toHaveProperty('help');
  });

  it('accepts a valid primary key definition', () => {
    const { errors } = define('text', { name: 'id', primaryKey: true, required: true, pattern: '^[a-z0-9]+$', min: 15, max: 15, autogeneratePattern: '[a-z0-9]{15}' });
    expect(errors).toEqual({});
  });

  it('keeps the relation target when the collection is renamed (stored by id)', () => {
    const previous = define('relation', { collectionId: 'posts' }).field as Field;
    expect(define('relation', { collectionId: 'pbc_posts_00001' }, { previous }).errors).toEqual({});
    expect(define('relation', { collectionId: 'posts' }, { previous }).errors).toEqual({});
  });
});

const MISMATCH = { code: 'validation_values_mismatch', message: "Values don't match." };
const threshold = (code: 'min' | 'max', t: unknown) =>
  code === 'min'
    ? { code: 'validation_min_greater_equal_than_required', message: `Must be no less than ${String(t)}.`, params: { threshold: t } }
    : { code: 'validation_max_less_equal_than_required', message: `Must be no greater than ${String(t)}.`, params: { threshold: t } };
const REQUIRED = { code: 'validation_required', message: 'Cannot be blank.' };
const UNSUPPORTED = { code: 'validation_unsupported_value_type', message: 'Invalid or unsupported value type.' };

describe('define: option errors', () => {
  const autodate = define('autodate', { onCreate: true }).field as Field;
  const relToPosts = define('relation', { collectionId: 'posts' }).field as Field;
  it.each<[string, string, Record<string, unknown>, Partial<DefineContext>, string, Record<string, unknown>]>([
    ['text', 'negative min', { min: -1 }, {}, 'min', threshold('min', 0)],
    ['text', 'max under min', { min: 5, max: 3 }, {}, 'max', threshold('min', 5)],
    ['text', 'fractional min', { min: 1.5 }, {}, 'min', UNSUPPORTED],
    ['text', 'string max', { max: '10' }, {}, 'max', UNSUPPORTED],
    ['text', 'huge max', { max: 2 ** 53 }, {}, 'max', threshold('max', Number.MAX_SAFE_INTEGER)],
    ['text', 'bad pattern', { pattern: '(' }, {}, 'pattern', { code: 'validation_invalid_regex' }],
    ['text', 'bad autogenerate regex', { autogeneratePattern: '[a-' }, {}, 'autogeneratePattern', { code: 'validation_invalid_regex' }],
    ['text', 'ungeneratable pattern', { autogeneratePattern: '(?<n>a)' }, {}, 'autogeneratePattern', { code: 'validation_invalid_autogenerate_pattern' }],
    ['text', 'autogenerate over max', { max: 5, autogeneratePattern: '[a-z]{10}' }, {}, 'autogeneratePattern', { code: 'validation_invalid_autogenerate_pattern_value' }],
    ['text', 'autogenerate under min', { min: 5, autogeneratePattern: '[a-z]{2,4}' }, {}, 'autogeneratePattern', { code: 'validation_invalid_autogenerate_pattern_value' }],
    ['text', 'autogenerate vs pattern', { pattern: '^[a-z]+$', autogeneratePattern: '[0-9]{3}' }, {}, 'autogeneratePattern', { code: 'validation_invalid_autogenerate_pattern_value' }],
    ['text', 'pk not named id', { primaryKey: true, required: true, pattern: 'x' }, {}, 'name', { code: 'validation_in_invalid', message: 'The primary key must be named "id".' }],
    ['text', 'pk hidden', { name: 'id', primaryKey: true, required: true, pattern: 'x', hidden: true }, {}, 'hidden', { code: 'validation_empty', message: 'Must be blank.' }],
    ['text', 'pk not required', { name: 'id', primaryKey: true, pattern: 'x' }, {}, 'required', REQUIRED],
    ['text', 'pk without pattern', { name: 'id', primaryKey: true, required: true }, {}, 'pattern', REQUIRED],
    ['editor', 'negative maxSize', { maxSize: -1 }, {}, 'maxSize', threshold('min', 0)],
    ['editor', 'string convertURLs', { convertURLs: 'yes' }, {}, 'convertURLs', UNSUPPORTED],
    ['number', 'fractional min with onlyInt', { onlyInt: true, min: 1.5 }, {}, 'min', { code: 'validation_only_int_constraint', message: 'Decimal numbers are not allowed.' }],
    ['number', 'fractional max with onlyInt', { onlyInt: true, max: 2.5 }, {}, 'max', { code: 'validation_only_int_constraint' }],
    ['number', 'max under min', { min: 5, max: 2 }, {}, 'max', threshold('min', 5)],
    ['number', 'string min', { min: '1' }, {}, 'min', UNSUPPORTED],
    ['email', 'invalid domain', { onlyDomains: ['ok.com', 'Bad_Domain'] }, {}, 'onlyDomains.1', { code: 'validation_is_domain', message: 'Must be a valid domain.' }],
    ['email', 'both lists', { onlyDomains: ['a.com'], exceptDomains: ['b.com'] }, {}, 'exceptDomains', { code: 'validation_empty' }],
    ['email', 'both lists (other key)', { onlyDomains: ['a.com'], exceptDomains: ['b.com'] }, {}, 'onlyDomains', { code: 'validation_empty' }],
    ['email', 'list of numbers', { exceptDomains: [1] }, {}, 'exceptDomains', UNSUPPORTED],
    ['url', 'invalid domain', { exceptDomains: ['no'] }, {}, 'exceptDomains.0', { code: 'validation_is_domain' }],
    ['date', 'unparsable min', { min: 'soon' }, {}, 'min', { code: 'validation_date_invalid', message: 'Must be a valid date.' }],
    ['date', 'max before min', { min: '2024-02-01', max: '2024-01-01' }, {}, 'max', { code: 'validation_date_out_of_range', message: 'The date is out of range.' }],
    ['autodate', 'neither onCreate nor onUpdate', {}, {}, 'onCreate', { code: 'validation_required', message: 'Either onCreate or onUpdate must be enabled.' }],
    ['autodate', 'neither (onUpdate key)', { onCreate: false, onUpdate: false }, {}, 'onUpdate', { code: 'validation_required' }],
    ['autodate', 'system behaviour change', { system: true, onCreate: true, onUpdate: true }, { previous: autodate }, 'onUpdate', MISMATCH],
    ['select', 'no values', {}, {}, 'values', REQUIRED],
    ['select', 'empty values', { values: [] }, {}, 'values', REQUIRED],
    ['select', 'maxSelect over the values', { values: ['a', 'b'], maxSelect: 3 }, {}, 'maxSelect', threshold('max', 2)],
    ['select', 'negative maxSelect', { values: ['a'], maxSelect: -1 }, {}, 'maxSelect', threshold('min', 0)],
    ['relation', 'no collection', {}, {}, 'collectionId', REQUIRED],
    ['relation', 'unknown collection', { collectionId: 'nope' }, {}, 'collectionId', { code: 'validation_field_relation_missing_collection', message: "The relation collection doesn't exist." }],
    ['relation', 'other collection', { collectionId: 'tags' }, { previous: relToPosts }, 'collectionId', { code: 'validation_field_relation_change', message: 'The relation collection cannot be changed.' }],
    ['relation', 'minSelect without maxSelect', { collectionId: 'posts', minSelect: 2, maxSelect: 0 }, {}, 'maxSelect', REQUIRED],
    ['relation', 'maxSelect under minSelect', { collectionId: 'posts', minSelect: 3, maxSelect: 2 }, {}, 'maxSelect', threshold('min', 3)],
    ['relation', 'negative minSelect', { collectionId: 'posts', minSelect: -1 }, {}, 'minSelect', threshold('min', 0)],
    ['json', 'negative maxSize', { maxSize: -5 }, {}, 'maxSize', threshold('min', 0)],
    ['password', 'min over 71', { min: 72 }, {}, 'min', threshold('max', 71)],
    ['password', 'max over 71', { max: 80 }, {}, 'max', threshold('max', 71)],
    ['password', 'max under min', { min: 8, max: 5 }, {}, 'max', threshold('min', 8)],
    ['password', 'cost under 4', { cost: 2 }, {}, 'cost', threshold('min', 4)],
    ['password', 'bad pattern', { pattern: '[' }, {}, 'pattern', { code: 'validation_invalid_regex' }],
  ])('%s: %s', (type, _what, options, extra, path, expected) => {
    const { errors } = define(type, options, extra);
    expect(at(errors, path)).toMatchObject(expected);
  });

  it("gives Go's regexp parser message, sentence-cased", () => {
    const { errors } = define('text', { pattern: '(' });
    expect(at(errors, 'pattern.message')).toBe('Error parsing regexp: missing closing ): `(`.');
  });

  it('shows a sample of the invalid autogenerated values', () => {
    const { errors } = define('text', { max: 2, autogeneratePattern: 'abc' });
    expect(at(errors, 'autogeneratePattern.message')).toBe('The provided autogenerate pattern could produce invalid field values, ex.: "abc".');
  });

  it('accepts Go-style inline flags in patterns', () => {
    expect(define('text', { pattern: '(?i)^[a-z]+$' }).errors).toEqual({});
  });

  it('lets a non-system autodate change its behaviour', () => {
    expect(define('autodate', { onCreate: true, onUpdate: true }, { previous: autodate }).errors).toEqual({});
  });
});
