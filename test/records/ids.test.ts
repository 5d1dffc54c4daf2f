// Record and collection ids (core/ids.ts newId): 15 characters of a-z0-9, each uniform over the 36 (the
// random bytes they are drawn from are skipped past 252, a multiple of 36: with a plain `byte % 36` the
// first four characters would come an eighth more often than the rest), never repeating.
import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from '../../server/core/ids.js';

describe('newId', () => {
  it('has the id shape, never repeats, and draws each character uniformly', () => {
    const ids = Array.from({ length: 40_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const mean = (ids.length * 15) / 36;
    // 600,000 characters: each count within 4% of the mean (a standard deviation is 0.6%)
    for (const [c, n] of counts) expect(Math.abs(n - mean) / mean, c).toBeLessThan(0.04);
  });

  it('takes a length', () => {
    expect(newId(5)).toMatch(/^[a-z0-9]{5}$/);
    expect(newId(40)).toMatch(/^[a-z0-9]{40}$/);
  });
});
