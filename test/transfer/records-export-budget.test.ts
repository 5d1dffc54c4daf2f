// A records export against the read budget (what one stretch may read; 48 MiB by default, 256 KiB
// here) over a real socket: chunks shrink to the size of the rows, so large rows stream whole; a
// single record over the budget fails before the first byte when it comes first, and after it the body
// ends with a line no JSON or NDJSON parser takes for data, then the connection is cut.
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.js';
import { startSdkServer } from '../support/sdk-server.js';

const BUDGET = 256 * 1024;
let server: RunningServer;
let admin: PocketBase;

beforeAll(async () => {
  ({ server, admin } = await startSdkServer({ limits: { responseBytes: BUDGET } }));
  await admin.collections.create({ name: 'notes', fields: [{ name: 'n', type: 'number' }, { name: 'body', type: 'text', max: 1_000_000 }], listRule: '' });
});
afterAll(async () => {
  await server.close();
});

async function importRows(rows: unknown[]): Promise<void> {
  const res = await fetch(`${server.url}/api/collections/notes/records/import`, { method: 'POST', headers: { authorization: admin.authStore.token, 'content-type': 'application/json' }, body: JSON.stringify(rows) });
  expect(res.status, await res.text()).toBe(200);
}

/** Reads a body as far as it goes: its text, and the error that cut it (null when it ended). */
async function readAll(res: Response): Promise<{ text: string; cut: unknown }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, cut: null };
      text += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    return { text, cut: err };
  }
}

const exportOf = (format: string, query = '') => fetch(`${server.url}/api/collections/notes/records/export?format=${format}${query}`);

describe('records export under the read budget', () => {
  it('streams rows far larger than a chunk of 500 allows, whole and in order, in every format', async () => {
    // 600 small rows, then 40 rows of 40 KB: a chunk of 500 holding them would read 1.6 MB
    await importRows([
      ...Array.from({ length: 600 }, (_, i) => ({ n: i, body: 'small' })),
      ...Array.from({ length: 40 }, (_, i) => ({ n: 600 + i, body: String(i % 10).repeat(40_000) })),
    ]);
    const json = await readAll(await exportOf('json'));
    expect(json.cut).toBeNull();
    const records = JSON.parse(json.text) as { n: number; body: string }[];
    expect(records.map((r) => r.n)).toEqual(Array.from({ length: 640 }, (_, i) => i));
    expect(records[639].body).toBe('9'.repeat(40_000));
    const sorted = await readAll(await exportOf('ndjson', '&sort=-n'));
    expect(sorted.cut).toBeNull();
    expect(sorted.text.trim().split('\n').map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(Array.from({ length: 640 }, (_, i) => 639 - i));
    const csv = await readAll(await exportOf('csv'));
    expect(csv.cut).toBeNull();
    expect(csv.text.trim().split('\r\n')).toHaveLength(641);
  });

  it('a record over the budget: a 400 when it comes first, a body that says so and is cut when it comes later', async () => {
    await importRows([{ n: 1000, body: 'x'.repeat(BUDGET + 10_000) }]);
    const first = await exportOf('json', '&filter=n%3D1000');
    expect(first.status).toBe(400);
    expect((await first.json()).message).toMatch(/^A record holds more than the 262144 bytes one read may hold/);

    for (const format of ['json', 'ndjson', 'csv']) {
      const res = await exportOf(format, '&filter=n%3E%3D600');
      expect(res.status, format).toBe(200);
      const { text, cut } = await readAll(res);
      expect(cut, format).not.toBeNull(); // the response is incomplete, which any HTTP client reports
      if (format === 'csv') {
        expect(text.split('\r\n').length, format).toBeGreaterThan(1);
        continue;
      }
      expect(text, format).toMatch(/\n!export failed: A record holds more than the .* one read may hold, so it cannot be exported; a filter can leave it out\.\n$/);
      if (format === 'json') expect(() => JSON.parse(text)).toThrow();
      else expect(() => text.trim().split('\n').map((l) => JSON.parse(l))).toThrow();
    }
  });
});
