// Filters written the PocketBase way compare dates correctly: PocketBase's layout
// (`2024-05-01 10:00:00.000Z`, what the SDK's pb.filter() makes of a Date) is read as the datetime it
// names, although Deskbase stores ISO 8601 with a `T`. Before, any such literal sorted below every
// stored time of the same day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/harness.js';

let h: Harness;
let su: string;
beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
  await h.req('POST', '/api/collections', { token: su, body: { name: 'events', fields: [{ name: 'due', type: 'date' }, { name: 'label', type: 'text' }] } });
  for (const [due, label] of [['2024-05-01 10:00:00.000Z', 'ten'], ['2024-05-01 12:30:00.250Z', 'half past twelve'], ['2024-05-02 00:00:00.000Z', 'next day']]) {
    expect((await h.req('POST', '/api/collections/events/records', { token: su, body: { due, label } })).status).toBe(200);
  }
});
afterAll(async () => { await h.close(); });

describe('datetime literals in PocketBase\'s layout', () => {
  it.each([
    ['due >= "2024-05-01 10:30:00.000Z"', ['half past twelve', 'next day']],
    ['due > "2024-05-01 10:00:00"', ['half past twelve', 'next day']],
    ['due >= "2024-05-01 10:00:00"', ['ten', 'half past twelve', 'next day']],
    ['due = "2024-05-01 12:30:00.250Z"', ['half past twelve']],
    ['due < "2024-05-01 12:30:00.25Z"', ['ten']],
    ['due <= "2024-05-01 23:59:59.999Z"', ['ten', 'half past twelve']],
    ['due >= "2024-05-01T10:30:00.000Z"', ['half past twelve', 'next day']], // our own layout, as before
    ['due >= "2024-05-01"', ['ten', 'half past twelve', 'next day']], // a date alone still compares as text
    ['label = "2024-02-30 10:00:00"', []], // not a real day: the text is kept
  ])('%s', async (filter, labels) => {
    const r = await h.req('GET', `/api/collections/events/records?sort=due&filter=${encodeURIComponent(filter)}`, { token: su });
    expect(r.status, r.text).toBe(200);
    expect(r.body.items.map((i: { label: string }) => i.label)).toEqual(labels);
  });
});
