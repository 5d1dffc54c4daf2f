// Value validation: every code with its message and params (PocketBase's validation codes).
import { describe, expect, it } from 'vitest';
import { specFor } from '../../server/core/fields/index.js';
import type { ValidateContext } from '../../server/core/fields/spec.js';
import type { Field } from '../../server/model/types.js';

const base = { id: 'f1', name: 'f', system: false, hidden: false, presentable: false, required: false };
const text = (o: object = {}): Field => ({ ...base, type: 'text', min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false, ...o });
const editor = (o: object = {}): Field => ({ ...base, type: 'editor', maxSize: 0, convertURLs: false, ...o });
const number = (o: object = {}): Field => ({ ...base, type: 'number', min: null, max: null, onlyInt: false, ...o });
const bool = (o: object = {}): Field => ({ ...base, type: 'bool', ...o });
const email = (o: object = {}): Field => ({ ...base, type: 'email', exceptDomains: [], onlyDomains: [], ...o });
const url = (o: object = {}): Field => ({ ...base, type: 'url', exceptDomains: [], onlyDomains: [], ...o });
const date = (o: object = {}): Field => ({ ...base, type: 'date', min: '', max: '', ...o });
const autodate = (): Field => ({ ...base, type: 'autodate', onCreate: true, onUpdate: true });
const select = (o: object = {}): Field => ({ ...base, type: 'select', values: ['a', 'b', 'c'], maxSelect: 1, ...o });
const relation = (o: object = {}): Field => ({ ...base, type: 'relation', collectionId: 'users', cascadeDelete: false, minSelect: 0, maxSelect: 1, ...o });
const json = (o: object = {}): Field => ({ ...base, type: 'json', maxSize: 0, ...o });
const password = (o: object = {}): Field => ({ ...base, type: 'password', min: 8, max: 0, pattern: '', cost: 0, ...o });
const geo = (o: object = {}): Field => ({ ...base, type: 'geoPoint', ...o });

const existing = new Set(['u1', 'u2', 'u3', 'u4']);
const ctx: ValidateContext = {
  isNew: true,
  missingRelationIds: async (collectionId, ids) => (collectionId === 'users' ? ids.filter((id) => !existing.has(id)) : ids),
};

const REQUIRED = { code: 'validation_required', message: 'Cannot be blank.' };
const UNSUPPORTED = { code: 'validation_unsupported_value_type', message: 'Invalid or unsupported value type.' };
const FORMAT = { code: 'validation_invalid_format', message: 'Invalid value format.' };
const OK = null;

const table: [string, Field, unknown, Record<string, unknown> | null][] = [
  // text
  ['text: optional empty', text(), '', OK],
  ['text: required empty', text({ required: true }), '', REQUIRED],
  ['text: not a string', text(), 5, UNSUPPORTED],
  ['text: under min', text({ min: 3 }), 'ab', { code: 'validation_min_text_constraint', message: 'Must be at least 3 character(s).', params: { min: 3 } }],
  ['text: min counts characters, not bytes', text({ min: 2 }), '😀😀', OK],
  ['text: default max 5000', text(), 'x'.repeat(5001), { code: 'validation_max_text_constraint', message: 'Must be no more than 5000 character(s).', params: { max: 5000 } }],
  ['text: exactly 5000', text(), 'x'.repeat(5000), OK],
  ['text: over max', text({ max: 3 }), 'abcd', { code: 'validation_max_text_constraint', message: 'Must be no more than 3 character(s).', params: { max: 3 } }],
  ['text: max counts characters', text({ max: 1 }), '😀', OK],
  ['text: pattern mismatch', text({ pattern: '^[a-z]+$' }), 'A1', FORMAT],
  ['text: pattern match', text({ pattern: '^[a-z]+$' }), 'abc', OK],
  ['text: pattern with Go flags', text({ pattern: '(?i)^[a-z]+$' }), 'ABC', OK],
  ['text: empty skips min', text({ min: 3 }), '', OK],
  ['text: primary key always required', text({ primaryKey: true, pattern: '^[a-z0-9]+$' }), '', REQUIRED],
  ['text: custom pk with a dot', text({ primaryKey: true, pattern: '' }), 'a.b', { code: 'validation_forbidden_pk_character', message: "'.' is not a valid primary key character.", params: { ch: '.' } }],
  ['text: custom pk with a slash', text({ primaryKey: true, pattern: '^.+$' }), 'a/b', { code: 'validation_forbidden_pk_character', params: { ch: '/' } }],
  ['text: custom pk reserved name', text({ primaryKey: true, pattern: '' }), 'lpt1', { code: 'validation_reserved_pk', message: "The primary key 'LPT1' is reserved and cannot be used.", params: { reserved: 'LPT1' } }],
  ['text: default pk pattern', text({ primaryKey: true, pattern: '^[a-z0-9]+$' }), 'con', OK],
  // editor
  ['editor: required empty', editor({ required: true }), '', REQUIRED],
  ['editor: over maxSize', editor({ maxSize: 10 }), 'x'.repeat(11), { code: 'validation_content_size_limit', message: 'The maximum allowed content size is 10 bytes.', params: { maxSize: 10 } }],
  ['editor: maxSize counts bytes', editor({ maxSize: 3 }), 'éé', { code: 'validation_content_size_limit' }],
  ['editor: default 5 MiB', editor(), 'x'.repeat(5 * 1024 * 1024 + 1), { code: 'validation_content_size_limit', params: { maxSize: 5 * 1024 * 1024 } }],
  ['editor: not a string', editor(), null, UNSUPPORTED],
  // number
  ['number: ⚠ required zero', number({ required: true }), 0, REQUIRED],
  ['number: required non-zero', number({ required: true }), -1, OK],
  ['number: NaN', number(), NaN, { code: 'validation_not_a_number', message: 'The submitted number is not properly formatted.' }],
  ['number: Infinity', number(), Infinity, { code: 'validation_not_a_number' }],
  ['number: decimal with onlyInt', number({ onlyInt: true }), 1.5, { code: 'validation_only_int_constraint', message: 'Decimal numbers are not allowed.' }],
  ['number: integer with onlyInt', number({ onlyInt: true }), 3, OK],
  ['number: under min', number({ min: 2 }), 1, { code: 'validation_min_number_constraint', message: 'Must be greater or equal than 2.', params: { min: 2 } }],
  ['number: over max', number({ max: 5.5 }), 6, { code: 'validation_max_number_constraint', message: 'Must be less or equal than 5.5.', params: { max: 5.5 } }],
  ['number: at the bounds', number({ min: 1, max: 2 }), 2, OK],
  ['number: ⚠ zero skips min', number({ min: 2 }), 0, OK],
  ['number: not a number', number(), '5', UNSUPPORTED],
  // bool
  ['bool: ⚠ required false', bool({ required: true }), false, REQUIRED],
  ['bool: required true', bool({ required: true }), true, OK],
  ['bool: optional false', bool(), false, OK],
  ['bool: not a bool', bool(), 'true', UNSUPPORTED],
  // email
  ['email: valid', email(), 'jane.doe+x@example.co.uk', OK],
  ['email: required empty', email({ required: true }), '', REQUIRED],
  ['email: no at', email(), 'nope', { code: 'validation_is_email', message: 'Must be a valid email address.' }],
  ['email: no domain dot', email(), 'a@localhost', { code: 'validation_is_email' }],
  ['email: two ats', email(), 'a@b@c.com', { code: 'validation_is_email' }],
  ['email: space', email(), 'a b@c.com', { code: 'validation_is_email' }],
  ['email: only domains', email({ onlyDomains: ['b.co'] }), 'a@c.co', { code: 'validation_email_domain_not_allowed', message: 'Email domain is not allowed.' }],
  ['email: only domains ok', email({ onlyDomains: ['b.co'] }), 'a@b.co', OK],
  ['email: except domains', email({ exceptDomains: ['b.co'] }), 'a@b.co', { code: 'validation_email_domain_not_allowed' }],
  // url
  ['url: https with path', url(), 'https://example.com/x?y=1#z', OK],
  ['url: no scheme', url(), 'example.com', OK],
  ['url: host and port', url(), 'http://localhost:8090/api', OK],
  ['url: ip', url(), 'http://192.168.1.10', OK],
  ['url: ftp', url(), 'ftp://files.example.com', OK],
  ['url: required empty', url({ required: true }), '', REQUIRED],
  ['url: bare word', url(), 'localhost', { code: 'validation_invalid_url', message: 'Must be a valid url.' }],
  ['url: spaces', url(), 'not a url', { code: 'validation_invalid_url' }],
  ['url: javascript scheme', url(), 'javascript:alert(1)', { code: 'validation_invalid_url' }],
  ['url: leading dot', url(), '.example.com', { code: 'validation_invalid_url' }],
  ['url: only domains', url({ onlyDomains: ['example.com'] }), 'https://other.com', { code: 'validation_url_domain_not_allowed', message: 'Url domain is not allowed.' }],
  ['url: only domains ok', url({ onlyDomains: ['example.com'] }), 'https://example.com/a', OK],
  ['url: only domains without scheme has no host', url({ onlyDomains: ['example.com'] }), 'example.com', { code: 'validation_url_domain_not_allowed' }],
  ['url: except domains', url({ exceptDomains: ['example.com'] }), 'https://user@example.com', { code: 'validation_url_domain_not_allowed' }],
  // date
  ['date: required empty', date({ required: true }), '', REQUIRED],
  ['date: before min', date({ min: '2024-01-01T00:00:00.000Z' }), '2023-12-31T23:59:59.999Z', { code: 'validation_min_greater_equal_than_required', message: 'Must be no less than 2024-01-01T00:00:00.000Z.', params: { threshold: '2024-01-01T00:00:00.000Z' } }],
  ['date: after max', date({ max: '2024-01-01T00:00:00.000Z' }), '2024-01-01T00:00:00.001Z', { code: 'validation_max_less_equal_than_required', params: { threshold: '2024-01-01T00:00:00.000Z' } }],
  ['date: within', date({ min: '2024-01-01T00:00:00.000Z', max: '2024-12-31T00:00:00.000Z' }), '2024-06-01T00:00:00.000Z', OK],
  ['date: not a string', date(), 5, UNSUPPORTED],
  ['autodate: never fails', autodate(), '', OK],
  // select
  ['select: single valid', select(), 'a', OK],
  ['select: single unknown', select(), 'x', { code: 'validation_invalid_value', message: 'Invalid value x.', params: { value: 'x' } }],
  ['select: required empty', select({ required: true }), '', REQUIRED],
  ['select: required empty list', select({ required: true, maxSelect: 2 }), [], REQUIRED],
  ['select: too many', select({ maxSelect: 2 }), ['a', 'b', 'c'], { code: 'validation_too_many_values', message: 'Select no more than 2.', params: { maxSelect: 2 } }],
  ['select: unknown in list', select({ maxSelect: 3 }), ['a', 'x'], { code: 'validation_invalid_value', params: { value: 'x' } }],
  ['select: not a value', select(), 5, UNSUPPORTED],
  // relation
  ['relation: existing', relation(), 'u1', OK],
  ['relation: required empty', relation({ required: true }), '', REQUIRED],
  ['relation: not enough', relation({ minSelect: 2, maxSelect: 3 }), ['u1'], { code: 'validation_not_enough_values', message: 'Select at least 2.', params: { minSelect: 2 } }],
  ['relation: too many', relation({ maxSelect: 3 }), ['u1', 'u2', 'u3', 'u4'], { code: 'validation_too_many_values', message: 'Select no more than 3.', params: { maxSelect: 3 } }],
  ['relation: missing record', relation({ maxSelect: 3 }), ['u1', 'ghost'], { code: 'validation_missing_rel_records', message: 'Failed to find all relation records with the provided ids.' }],
  ['relation: missing collection', relation({ collectionId: 'gone' }), 'u1', { code: 'validation_missing_rel_records' }],
  // json
  ['json: required null', json({ required: true }), null, REQUIRED],
  ['json: required empty string', json({ required: true }), '', REQUIRED],
  ['json: required empty array', json({ required: true }), [], REQUIRED],
  ['json: required empty object', json({ required: true }), {}, REQUIRED],
  ['json: required zero is a value', json({ required: true }), 0, OK],
  ['json: required false is a value', json({ required: true }), false, OK],
  ['json: over maxSize', json({ maxSize: 5 }), 'abcdef', { code: 'validation_json_size_limit', message: 'The maximum allowed JSON size is 5 bytes.', params: { maxSize: 5 } }],
  ['json: at maxSize', json({ maxSize: 8 }), 'abcdef', OK],
  ['json: NaN', json(), NaN, { code: 'validation_invalid_json', message: 'Must be a valid json value.' }],
  ['json: function', json(), () => 1, { code: 'validation_invalid_json' }],
  // password
  ['password: required empty', password({ required: true }), '', REQUIRED],
  ['password: optional empty', password(), '', OK],
  ['password: too short', password(), 'short', { code: 'validation_min_text_constraint', message: 'Must be at least 8 character(s).', params: { min: 8 } }],
  ['password: over 71', password(), 'x'.repeat(72), { code: 'validation_max_text_constraint', message: 'Must be less than 71 character(s).', params: { max: 71 } }],
  ['password: over max', password({ max: 10 }), 'x'.repeat(11), { code: 'validation_max_text_constraint', params: { max: 10 } }],
  ['password: pattern', password({ pattern: '\\d' }), 'abcdefgh', FORMAT],
  ['password: pattern ok', password({ pattern: '\\d' }), 'abcdefg1', OK],
  // geoPoint
  ['geoPoint: required zero', geo({ required: true }), { lon: 0, lat: 0 }, REQUIRED],
  ['geoPoint: optional zero', geo(), { lon: 0, lat: 0 }, OK],
  ['geoPoint: valid', geo({ required: true }), { lon: -180, lat: 90 }, OK],
  ['geoPoint: latitude', geo(), { lon: 0, lat: 91 }, { code: 'validation_invalid_latitude', message: 'Latitude must be between -90 and 90 degrees.' }],
  ['geoPoint: longitude', geo(), { lon: -181, lat: 0 }, { code: 'validation_invalid_longitude', message: 'Longitude must be between -180 and 180 degrees.' }],
  ['geoPoint: not a point', geo(), 'x', UNSUPPORTED],
];

describe('validate', () => {
  it.each(table)('%s', async (_name, field, value, expected) => {
    const error = await specFor(field).validate(value, field, ctx);
    if (expected === null) expect(error).toBeNull();
    else expect(error).toMatchObject(expected);
  });

  it('never returns params for codes without them', () => {
    const error = specFor(text({ required: true })).validate('', text({ required: true }), ctx);
    expect(error).toEqual(REQUIRED);
  });

  it('asks for missing relation ids only when the count rules pass', async () => {
    const asked: string[][] = [];
    const spy: ValidateContext = { isNew: false, missingRelationIds: async (_c, ids) => (asked.push(ids), []) };
    const field = relation({ maxSelect: 2 });
    await specFor(field).validate(['u1', 'u2', 'u3'], field, spy);
    await specFor(field).validate(['u1', 'u2'], field, spy);
    expect(asked).toEqual([['u1', 'u2']]);
  });
});
