// The journal payload must give replay the very values the write bound: exact numbers (-0, 1e21,
// 2^53, NaN), and strings UTF-8 cannot carry (lone surrogates).
import { describe, expect, it } from 'vitest';
import { decodeStatements, StatementEncoder } from '../../server/store/codec.js';
import type { SqlValue } from '../../server/model/types.js';

const values: [string, SqlValue][] = [
  ['null', null],
  ['zero', 0],
  ['negative zero', -0],
  ['small int', 42],
  ['negative int', -7],
  ['int32 bounds', -(2 ** 31)],
  ['just past int32', 2 ** 31],
  ['max safe integer', Number.MAX_SAFE_INTEGER],
  ['past safe integers', 2 ** 53 + 2],
  ['1e21', 1e21],
  ['fraction', 0.1 + 0.2],
  ['tiny', Number.MIN_VALUE],
  ['infinity', -Infinity],
  ['NaN', NaN],
  ['empty string', ''],
  ['ascii', 'hello'],
  ['accents and emoji', 'héllo wörld 😀'],
  ['lone high surrogate', 'a\uD800b'],
  ['lone low surrogate at end', 'z\uDFFF'],
  ['NUL inside', 'a\u0000b'],
  ['long string', 'x'.repeat(100_000)],
];

describe('journal payload codec', () => {
  it.each(values)('round-trips %s exactly', (_name, value) => {
    const encoder = new StatementEncoder();
    encoder.add('INSERT INTO t VALUES (?)', [value]);
    const [statement] = decodeStatements(encoder.finish());
    expect(statement.sql).toBe('INSERT INTO t VALUES (?)');
    expect(statement.params).toHaveLength(1);
    expect(Object.is(statement.params[0], value)).toBe(true);
  });

  it('keeps statement order and stores a repeated SQL text once', () => {
    const encoder = new StatementEncoder();
    const sql = `INSERT INTO "a fairly long table name" (id, body) VALUES (?, ?) -- ${'padding '.repeat(20)}`;
    for (let i = 0; i < 100; i++) encoder.add(sql, [i, `body ${i}`]);
    encoder.add('DELETE FROM t WHERE id = ?', ['\uD83D']);
    encoder.add('VACUUM', []);
    const payload = encoder.finish();
    expect(payload.length).toBeLessThan(sql.length * 2 + 100 * 12);
    const decoded = decodeStatements(payload);
    expect(decoded).toHaveLength(102);
    expect(decoded[57]).toEqual({ sql, params: [57, 'body 57'] });
    expect(decoded[100]).toEqual({ sql: 'DELETE FROM t WHERE id = ?', params: ['\uD83D'] });
    expect(decoded[101]).toEqual({ sql: 'VACUUM', params: [] });
  });

  it.each([
    ['truncated', (p: Buffer) => p.subarray(0, p.length - 1)],
    ['trailing bytes', (p: Buffer) => Buffer.concat([p, Buffer.from([0])])],
    ['unknown tag', (p: Buffer) => Buffer.from(p.toString('latin1').replace('\u0003', '\u0009'), 'latin1')],
  ])('rejects a malformed payload (%s)', (_name, damage) => {
    const encoder = new StatementEncoder();
    encoder.add('SELECT ?', [5]);
    expect(() => decodeStatements(damage(encoder.finish()))).toThrow(/journal entry/);
  });
});
