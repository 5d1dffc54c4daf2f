// Submitted value → normalised value: PocketBase's casts (PocketBase's input normalisation).
import { describe, expect, it } from 'vitest';
import { FIELD_SPECS, specFor } from '../../server/core/fields/index.js';
import { autodateField, createdField, primaryKeyField } from '../../server/core/fields/system-fields.js';
import type { FieldSpec } from '../../server/core/fields/spec.js';
import type { Field, FieldType } from '../../server/model/types.js';

const base = { id: 'f1', name: 'f', system: false, hidden: false, presentable: false, required: false };
const fields = {
  text: { ...base, type: 'text', min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false },
  editor: { ...base, type: 'editor', maxSize: 0, convertURLs: false },
  number: { ...base, type: 'number', min: null, max: null, onlyInt: false },
  bool: { ...base, type: 'bool' },
  email: { ...base, type: 'email', exceptDomains: [], onlyDomains: [] },
  url: { ...base, type: 'url', exceptDomains: [], onlyDomains: [] },
  date: { ...base, type: 'date', min: '', max: '' },
  autodate: { ...base, type: 'autodate', onCreate: true, onUpdate: false },
  select: { ...base, type: 'select', values: ['a', 'b', 'c'], maxSelect: 1 },
  selectMany: { ...base, type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
  relation: { ...base, type: 'relation', collectionId: 'c', cascadeDelete: false, minSelect: 0, maxSelect: 1 },
  relationMany: { ...base, type: 'relation', collectionId: 'c', cascadeDelete: false, minSelect: 0, maxSelect: 5 },
  json: { ...base, type: 'json', maxSize: 0 },
  password: { ...base, type: 'password', min: 0, max: 0, pattern: '', cost: 0 },
  geoPoint: { ...base, type: 'geoPoint' },
} satisfies Record<string, Field>;

type Kind = keyof typeof fields;
const normalize = (kind: Kind, value: unknown) => specFor(fields[kind]).normalize(value, fields[kind]);

const table: [Kind, unknown, unknown][] = [
  ['text', 'hello', 'hello'],
  ['text', 12, '12'],
  ['text', 1.5, '1.5'],
  ['text', true, 'true'],
  ['text', null, ''],
  ['text', undefined, ''],
  ['text', { a: 1 }, ''],
  ['text', ['a'], ''],
  ['editor', '<p>x</p>', '<p>x</p>'],
  ['editor', 7, '7'],
  ['email', 42, '42'],
  ['url', null, ''],
  ['password', 12345678, '12345678'],
  ['number', 5, 5],
  ['number', '5', 5],
  ['number', '-1.5', -1.5],
  ['number', '1e3', 1000],
  ['number', '.5', 0.5],
  ['number', 'abc', 0],
  ['number', '', 0],
  ['number', ' 5', 0],
  ['number', '0x10', 0],
  ['number', true, 1],
  ['number', false, 0],
  ['number', null, 0],
  ['number', [1], 0],
  ['number', 'inf', Infinity],
  ['number', '-Infinity', -Infinity],
  ['number', 'NaN', NaN],
  ['bool', true, true],
  ['bool', false, false],
  ['bool', 'true', true],
  ['bool', 'True', true],
  ['bool', 'TRUE', true],
  ['bool', '1', true],
  ['bool', 't', true],
  ['bool', 'T', true],
  ['bool', 'yes', false],
  ['bool', 'false', false],
  ['bool', '0', false],
  ['bool', '', false],
  ['bool', 1, true],
  ['bool', 2, true],
  ['bool', 0, false],
  ['bool', null, false],
  ['bool', {}, false],
  ['date', '2024-01-02', '2024-01-02T00:00:00.000Z'],
  ['date', '2024-01-02 10:11:12.345Z', '2024-01-02T10:11:12.345Z'],
  ['date', '2024-01-02T10:11:12.345Z', '2024-01-02T10:11:12.345Z'],
  ['date', '2024-01-02T10:11:12Z', '2024-01-02T10:11:12.000Z'],
  ['date', '2024-01-02T10:11:12.123456789Z', '2024-01-02T10:11:12.123Z'],
  ['date', '2024-01-02T10:11:12+02:00', '2024-01-02T08:11:12.000Z'],
  ['date', '2024-01-02 10:11:12 -0700', '2024-01-02T17:11:12.000Z'],
  ['date', '2024-01-02 10:11:12', '2024-01-02T10:11:12.000Z'],
  ['date', '2024-01-02T10:11', '2024-01-02T10:11:00.000Z'],
  ['date', 'Tue, 02 Jan 2024 15:04:05 GMT', '2024-01-02T15:04:05.000Z'],
  ['date', 1700000000, '2023-11-14T22:13:20.000Z'],
  ['date', new Date('2024-05-06T07:08:09.010Z'), '2024-05-06T07:08:09.010Z'],
  ['date', '', ''],
  ['date', null, ''],
  ['date', 'tomorrow', ''],
  ['date', '2024-02-30', ''],
  ['date', '2024-13-01', ''],
  ['date', '2024-01-02T24:00:00Z', ''],
  ['date', '0001-01-01 00:00:00.000Z', ''],
  ['date', true, ''],
  ['autodate', '2024-01-02 03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
  ['select', 'a', 'a'],
  ['select', ['a', 'b'], 'b'],
  ['select', ['a', 'a'], 'a'],
  ['select', ['a', ''], 'a'],
  ['select', '["a","b"]', 'b'],
  ['select', [], ''],
  ['select', '', ''],
  ['select', null, ''],
  ['select', 'x', 'x'],
  ['selectMany', 'a', ['a']],
  ['selectMany', ['a', 'b', 'a', ''], ['a', 'b']],
  ['selectMany', '["c","a"]', ['c', 'a']],
  ['selectMany', '[broken', ['[broken']],
  ['selectMany', 5, ['5']],
  ['selectMany', [1, true], ['1', 'true']],
  ['selectMany', {}, []],
  ['selectMany', null, []],
  ['selectMany', '', []],
  ['relation', ['id1', 'id2'], 'id2'],
  ['relation', 'id1', 'id1'],
  ['relationMany', 'id1', ['id1']],
  ['relationMany', ['id1', 'id2', 'id1'], ['id1', 'id2']],
  ['json', '', ''],
  ['json', 'null', null],
  ['json', 'true', true],
  ['json', 'false', false],
  ['json', '123', 123],
  ['json', '-1.5', -1.5],
  ['json', '"quoted"', 'quoted'],
  ['json', '[1,2]', [1, 2]],
  ['json', '{"a":1}', { a: 1 }],
  ['json', 'hello', 'hello'],
  ['json', '{bad', '{bad'],
  ['json', '12abc', '12abc'],
  ['json', ' 1', ' 1'],
  ['json', 'True', 'True'],
  ['json', 5, 5],
  ['json', false, false],
  ['json', { a: [1, { b: null }] }, { a: [1, { b: null }] }],
  ['json', { a: undefined, b: 1 }, { b: 1 }],
  ['json', [], []],
  ['json', null, null],
  ['json', undefined, null],
  ['geoPoint', { lon: 1.5, lat: -2 }, { lon: 1.5, lat: -2 }],
  ['geoPoint', { lat: 2, lon: 1, extra: true }, { lon: 1, lat: 2 }],
  ['geoPoint', '{"lon":10,"lat":20}', { lon: 10, lat: 20 }],
  ['geoPoint', { lon: '1', lat: 2 }, { lon: 0, lat: 2 }],
  ['geoPoint', 'garbage', { lon: 0, lat: 0 }],
  ['geoPoint', null, { lon: 0, lat: 0 }],
  ['geoPoint', [1, 2], { lon: 0, lat: 0 }],
];

describe('normalize', () => {
  it.each(table)('%s: %j → %j', (kind, input, expected) => {
    expect(normalize(kind, input)).toEqual(expected);
  });

  it('is idempotent on normalised values', () => {
    for (const [kind, input] of table) {
      if (kind === 'json') continue; // a normalised JSON string such as "123" is a string, not submitted text
      const once = normalize(kind, input);
      expect(normalize(kind, once)).toEqual(once);
    }
  });
});

describe('zero', () => {
  it.each<[Kind, unknown]>([
    ['text', ''], ['editor', ''], ['number', 0], ['bool', false], ['email', ''], ['url', ''], ['date', ''],
    ['autodate', ''], ['select', ''], ['selectMany', []], ['relation', ''], ['relationMany', []], ['json', null],
    ['password', ''], ['geoPoint', { lon: 0, lat: 0 }],
  ])('%s → %j', (kind, zero) => {
    expect(specFor(fields[kind]).zero(fields[kind])).toEqual(zero);
  });
});

describe('system fields', () => {
  it('builds the primary key as PocketBase does, with the spec\'s id `_id`', () => {
    expect(primaryKeyField()).toEqual({
      id: '_id', name: 'id', type: 'text', system: true, primaryKey: true, required: true, min: 15, max: 15,
      pattern: '^[a-z0-9]+$', autogeneratePattern: '[a-z0-9]{15}', hidden: false, presentable: false, help: '',
    });
  });

  it('returns fresh objects each time', () => {
    const a = primaryKeyField();
    a.max = 99;
    expect(primaryKeyField().max).toBe(15);
  });

  it('builds created and updated autodates', () => {
    expect(createdField()).toEqual({ id: 'autodate2990389176', name: 'created', type: 'autodate', system: true, hidden: false, presentable: false, onCreate: true, onUpdate: false });
    expect(autodateField('updated', false)).toMatchObject({ id: 'autodate3332085495', system: false, onCreate: true, onUpdate: true });
  });

  it('validates cleanly against its own spec', () => {
    const spec = FIELD_SPECS.text as FieldSpec<FieldType>;
    const pk = primaryKeyField();
    expect(spec.define({ ...pk }, pk, { collectionType: 'base', lookup: () => undefined }).errors).toEqual({});
  });
});
