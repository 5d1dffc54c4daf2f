// The one JSON structure scanner (server/json-scan.ts) behind the body shape check and the records
// import's array items: the same structure whatever the chunking, strings and escapes skipped.
import { describe, expect, it } from 'vitest';
import { JsonScanner } from '../../server/json-scan.js';
import { jsonArrayItems } from '../../server/core/transfer/json-rows.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** The structural characters the scanner finds, feeding `text` in chunks of `size` bytes. */
function structure(text: string, size: number): string {
  const bytes = enc(text);
  const scanner = new JsonScanner();
  let out = '';
  for (let at = 0; at < bytes.length; at += size) {
    const chunk = bytes.subarray(at, at + size);
    for (let i = scanner.next(chunk, 0); i !== -1; i = scanner.next(chunk, i + 1)) out += String.fromCharCode(chunk[i]);
  }
  return out;
}

const SAMPLES = [
  '{"a":[1,2,{"b":"x,y:z"}],"c":"q\\"{[,:"}',
  '["\\\\",{"k\\\\\\"":"\\\\\\\\"},[]]',
  '{"é":"ü\\u0022,","n":null}',
];

describe('JSON structure scanner', () => {
  it.each(SAMPLES)('finds the same structure in %s fed whole or a byte at a time', (text) => {
    const expected = text.replace(/"(?:[^"\\]|\\.)*"/g, '').replace(/[^{}[\],:]/g, '');
    for (const size of [1, 2, 3, 7, 1000]) expect(structure(text, size)).toBe(expected);
  });

  it('says when the text ends inside a string', () => {
    const scanner = new JsonScanner();
    expect(scanner.next(enc('["abc\\"'), 0)).toBe(0);
    expect(scanner.next(enc('["abc\\"'), 1)).toBe(-1);
    expect(scanner.inString).toBe(true);
  });

  it('splits an import array into its items, each parsing as JSON.parse reads the whole', () => {
    for (const text of [`\ufeff [ ${SAMPLES.join(' ,\n')} ] \n`, '[]', ' [ ] ', '[1]', '[{"a":"]"},"x"]']) {
      expect([...jsonArrayItems(enc(text))].map((item) => JSON.parse(item))).toEqual(JSON.parse(text.replace(/^\ufeff/, '')));
    }
    expect(() => [...jsonArrayItems(enc('{"a":1}'))]).toThrow('expected a JSON array');
    expect(() => [...jsonArrayItems(enc('[1,2'))]).toThrow('not closed');
    expect(() => [...jsonArrayItems(enc('["a'))]).toThrow('unterminated string');
    expect(() => [...jsonArrayItems(enc('[1] x'))]).toThrow('unexpected text after');
  });
});
