// The e-mail check (fields/email.ts) accepts exactly what govalidator's IsEmail regular expression
// accepts, up to 254 characters, without that expression's exponential backtracking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEmail, MAX_EMAIL_LENGTH } from '../../server/core/fields/email.js';

// govalidator's expression as it stood: safe only on short inputs
const U = '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF';
const ATOM = `[a-zA-Z0-9!#$%&'*+\\-/=?^_\`{|}~${U}]+`;
const QUOTED = `"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e${U}]|\\\\[\\x20-\\x7e])*"`;
const LABEL = `[a-zA-Z0-9${U}](?:[a-zA-Z0-9\\-._~${U}]*[a-zA-Z0-9${U}])?`;
const TLD = `[a-zA-Z${U}](?:[a-zA-Z0-9\\-._~${U}]*[a-zA-Z${U}])?`;
const REFERENCE = new RegExp(`^(?:${ATOM}(?:\\.${ATOM})*|${QUOTED})@(?:${LABEL}\\.)+${TLD}\\.?$`);

describe('isEmail', () => {
  it('agrees with the reference expression on random short strings', () => {
    const unit = fc.constantFrom('a', 'Z', '1', '.', '@', '"', '\\', '-', '_', '~', '!', ' ', 'é', '\uD83D', 'x.y', '@b.co');
    const text = fc.array(unit, { maxLength: 12 }).map((a) => a.join(''));
    fc.assert(fc.property(text, (t) => {
      expect(isEmail(t), JSON.stringify(t)).toBe(REFERENCE.test(t));
    }), { numRuns: 20_000 });
  });

  it('agrees on addresses built to pass, with dots, dashes and quotes in every place', () => {
    const part = fc.array(fc.constantFrom('a', 'b9', '-', '.', '_', '~', 'é'), { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
    const local = fc.oneof(part, part.map((p) => `"${p} @\\"x"`));
    fc.assert(fc.property(local, part, part, fc.boolean(), (l, d1, d2, dot) => {
      const value = `${l}@${d1}.${d2}${dot ? '.' : ''}`;
      expect(isEmail(value), JSON.stringify(value)).toBe(REFERENCE.test(value));
    }), { numRuns: 5000 });
  });

  it('is linear on labels that the expression backtracked over, and caps the length', () => {
    // 2^40 ways to split these labels; the regular expression would not finish
    expect(isEmail(`x@${'a.'.repeat(40)}!`)).toBe(false);
    expect(isEmail(`x@${'a-'.repeat(40)}.a!`)).toBe(false);
    const longest = `${'a'.repeat(64)}@${'b'.repeat(MAX_EMAIL_LENGTH - 64 - 5)}.com`;
    expect(longest).toHaveLength(MAX_EMAIL_LENGTH);
    expect(isEmail(longest)).toBe(true);
    expect(isEmail(`a${longest}`)).toBe(false);
  });
});
