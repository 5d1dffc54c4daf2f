// A value refused on its size as submitted (FieldSpec.oversize, before it is normalised, checked by a rule
// or bound) is exactly a value its field's validation refuses, with the same error; and the weight it is
// judged by never exceeds the JSON it would be stored as. Property-tested with fast-check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { specFor } from '../../server/core/fields/index.js';
import type { ValidateContext } from '../../server/core/fields/spec.js';
import type { Field } from '../../server/model/types.js';
import { jsonWeight } from '../../server/core/value-weight.js';

const base = { id: 'f1', name: 'f', system: false, hidden: false, presentable: false, required: false };
const ctx: ValidateContext = { isNew: true, missingRelationIds: async () => [] };

/** When `oversize` refuses a raw value, validation of its normalised form gives the same error. */
function agrees(field: Field, raw: unknown): void {
  const spec = specFor(field);
  const early = spec.oversize?.(raw, field) ?? null;
  if (early === null) return;
  expect(spec.validate(spec.normalize(raw, field), field, ctx)).toEqual(early);
}

describe('size checks on submitted values', () => {
  it('the weight is a lower bound of the stored JSON, in UTF-8 bytes', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(jsonWeight(v)).toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(v), 'utf8'));
    }), { numRuns: 2000 });
  });

  it('counting stops past the limit', () => {
    const huge = Array.from({ length: 1000 }, () => 'x'.repeat(10_000));
    const weight = jsonWeight(huge, 50_000);
    expect(weight).toBeGreaterThan(50_000);
    expect(weight).toBeLessThan(70_000); // the full weight is over 10 MB
    expect(jsonWeight({ a: huge, b: huge }, 50_000)).toBeLessThan(70_000);
  });

  it('json: refused early only when validation refuses it too', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 400 }), fc.boolean(), (v, maxSize, asText) => {
      agrees({ ...base, type: 'json', maxSize }, asText ? JSON.stringify(v, null, 2) : v);
    }), { numRuns: 2000 });
  });

  it('text and editor: refused early only when validation refuses it too', () => {
    const texts = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\uD800'), maxLength: 60 });
    fc.assert(fc.property(texts, fc.integer({ min: 1, max: 40 }), (s, limit) => {
      agrees({ ...base, type: 'text', min: 0, max: limit, pattern: '', autogeneratePattern: '', primaryKey: false }, s);
      agrees({ ...base, type: 'editor', maxSize: limit, convertURLs: false }, s);
    }), { numRuns: 3000 });
  });

  it('catches what the defaults refuse without reading the whole value', () => {
    const big = 'x'.repeat(31_000_000);
    const text: Field = { ...base, type: 'text', min: 0, max: 0, pattern: '', autogeneratePattern: '', primaryKey: false };
    const editor: Field = { ...base, type: 'editor', maxSize: 0, convertURLs: false };
    const json: Field = { ...base, type: 'json', maxSize: 0 };
    expect(specFor(text).oversize?.(big, text)?.code).toBe('validation_max_text_constraint');
    expect(specFor(editor).oversize?.(big, editor)?.code).toBe('validation_content_size_limit');
    expect(specFor(json).oversize?.({ a: big }, json)?.code).toBe('validation_json_size_limit');
    expect(specFor(json).oversize?.(`[${'1,'.repeat(4_000_000)}1]`, json)?.code).toBe('validation_json_size_limit');
    // within the limits nothing is refused early
    expect(specFor(editor).oversize?.('x'.repeat(5 << 20), editor)).toBeNull();
    expect(specFor(json).oversize?.({ a: 'x'.repeat(1000) }, json)).toBeNull();
  });
});
