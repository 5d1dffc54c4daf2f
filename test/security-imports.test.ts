// What a superuser's import or restore can do to a running server (issue 21, items 8, 10 and 11),
// against a server in its own process while `/api/health` is polled: each hostile upload gets its clear
// 400, nothing stored changes, and no health check waits 250 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_ROWS } from '../server/core/transfer/records-import.js';
import { http } from './fixtures/hardening-http.js';
import { whilePolled } from './fixtures/health-poll.js';
import { startChildServer, type ChildServer } from './support/child-server.js';

const HEALTH_BOUND_MS = 250;

let server: ChildServer;
let url: string;
let su: string;

beforeAll(async () => {
  server = await startChildServer('imports');
  ({ url, su } = server);
  const r = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'title', type: 'text' }] } });
  expect(r.status, r.text).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const worst: Record<string, number> = {};
afterAll(() => console.log(`imports: longest /api/health wait (ms), bound ${HEALTH_BOUND_MS}: ${JSON.stringify(worst)}`));

async function polled<T>(name: string, request: () => Promise<T>): Promise<T> {
  const { result, longest } = await whilePolled(url, request);
  worst[name] = Math.round(longest);
  expect(longest, `${name}: /api/health waited ${longest.toFixed(0)} ms`).toBeLessThan(HEALTH_BOUND_MS);
  return result;
}

const count = async (collection: string) => (await http(url, 'GET', `/api/collections/${collection}/records?perPage=1`, { token: su })).body.totalItems as number;

describe('item 11: a records import has a row cap', () => {
  it(`${MAX_IMPORT_ROWS + 1} rows of {} are refused while parsing, naming the limit; nothing is stored`, async () => {
    const ndjson = '{}\n'.repeat(MAX_IMPORT_ROWS + 1);
    const r = await polled('rows-over-cap', () => http(url, 'POST', '/api/collections/notes/records/import?format=ndjson', { token: su, raw: ndjson }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toBe('Failed to import records: more than 100,000 rows (the limit of one import); split the file and import it in parts.');
    expect(r.body.data.rows.code).toBe('validation_too_many_rows');
    expect(await count('notes')).toBe(0);
  }, 60_000);

  it('64 MiB of empty JSON objects (22 million rows) is refused as quickly, not parsed whole', async () => {
    const body = `[${'{},'.repeat(22_000_000)}{}]`;
    const r = await polled('rows-64mib', () => http(url, 'POST', '/api/collections/notes/records/import?format=json', { token: su, raw: body }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.data.rows.code).toBe('validation_too_many_rows');
    expect(await count('notes')).toBe(0);
  }, 60_000);
});
