// The data set of the list and expand tests: 120 items with heavy ties (five distinct `created` values,
// repeated titles and numbers), owned by Ann, Bob or nobody, with up to three labels each, under a list
// rule that shows published items and the caller's own.
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApiRecord } from '../../server/core/record-serializer.js';
import { harness, type Harness } from './harness.js';

export interface Item {
  id: string;
  /** Insertion order: the row id. */
  seq: number;
  title: string;
  n: number;
  published: boolean;
  owner: string;
  labels: string[];
  created: string;
}

export type Viewer = 'guest' | 'ann' | 'su';

export const COUNT = 120;
const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
export const CREATED = ['2024-01-01 00:00:00.000Z', '2024-03-05 10:00:00.000Z', '2024-03-05 10:00:00.001Z', '2025-07-01 12:30:00.000Z', '2025-12-31 23:59:59.999Z'];

// Live bindings: each test file imports them and sees the values the fixture's beforeAll sets.
export let h: Harness;
export let su: string;
export let ann: { id: string; token: string };
export let bob: { id: string };
export let items: Item[];
export let labelIds: string[];

/** mulberry32, so the data set is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds the data once for the test file that calls it, and closes it after. */
export function useListFixture(): void {
  beforeAll(async () => {
    h = await harness();
    su = await h.superuser();
    const usersId = h.core.registry.get('users')!.id;
    await h.req('PATCH', '/api/collections/users', { token: su, body: { viewRule: '' } });
    const user = async (email: string) => {
      const r = await h.req('POST', '/api/collections/users/records', { body: { email, password: 'password123', passwordConfirm: 'password123' } });
      return { id: r.body.id as string, token: await h.signIn('users', email, 'password123') };
    };
    ann = await user('ann@example.com');
    bob = await user('bob@example.com');
    const labels = await h.req('POST', '/api/collections', { token: su, body: { name: 'labels', listRule: '', viewRule: '', fields: [{ name: 'name', type: 'text' }] } });
    labelIds = [];
    for (const name of ['red', 'green', 'blue', 'gold']) labelIds.push((await h.req('POST', '/api/collections/labels/records', { token: su, body: { name } })).body.id);
    const made = await h.req('POST', '/api/collections', {
      token: su,
      body: {
        name: 'items',
        listRule: 'published = true || owner = @request.auth.id',
        viewRule: 'published = true || owner = @request.auth.id',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'n', type: 'number' },
          { name: 'published', type: 'bool' },
          { name: 'owner', type: 'relation', collectionId: usersId, maxSelect: 1 },
          { name: 'labels', type: 'relation', collectionId: labels.body.id, maxSelect: 3 },
          { name: 'created', type: 'autodate', onCreate: true },
        ],
      },
    });
    expect(made.status).toBe(200);
    const rand = prng(11);
    const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
    items = [];
    for (let seq = 0; seq < COUNT; seq++) {
      const body = {
        title: `${pick(WORDS)} ${pick(WORDS)}`,
        n: Math.floor(rand() * 4),
        published: rand() < 0.6,
        owner: pick([ann.id, bob.id, '']),
        labels: labelIds.filter(() => rand() < 0.3).slice(0, 3),
      };
      const r = await h.req('POST', '/api/collections/items/records', { token: su, body });
      expect(r.status).toBe(200);
      items.push({ ...body, id: r.body.id, seq, created: pick(CREATED) });
    }
    // autodate values are never taken from a body: the ties are made in the table itself
    await h.core.store.write(async (tx) => {
      for (const it of items) await tx.run('UPDATE "items" SET "created" = ? WHERE "id" = ?', [it.created.replace(' ', 'T'), it.id]);
    });
  }, 60_000);
  afterAll(() => h.close());
}

export const tokenOf = (viewer: Viewer): string | undefined => (viewer === 'guest' ? undefined : viewer === 'su' ? su : ann.token);

export async function page(viewer: Viewer, query: Record<string, string>) {
  const r = await h.req('GET', `/api/collections/items/records?${new URLSearchParams(query)}`, { token: tokenOf(viewer) });
  expect(r.status, r.text).toBe(200);
  return r.body as { page: number; perPage: number; totalItems: number; totalPages: number; items: ApiRecord[] };
}
