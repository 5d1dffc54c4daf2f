// Issue 21, item 4: a batch sub-request's URL is percent-decoded like a request's own URL: a malformed
// escape in its collection, id or query is that request's 400 (`batch_request_failed` at its index),
// for guests too, with nothing written and nothing logged as a server error. A real server on a socket.
import { beforeAll, describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';

const sdk = sdkSuite({ log: (line) => void logged.push(line) });

const logged: unknown[] = [];

beforeAll(async () => {
  await sdk.admin.collections.create({
    name: 'posts', type: 'base', fields: [{ name: 'title', type: 'text' }],
    listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '',
  });
});

async function batch(requests: unknown[]): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sdk.server.url}/api/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ requests }) });
  return { status: res.status, body: await res.json() };
}

describe('a batch sub-request URL with a malformed percent-encoding', () => {
  const create = { method: 'POST', url: '/api/collections/posts/records', body: { title: 'kept out' } };
  const cases: [string, { method: string; url: string; body?: unknown }][] = [
    ['in the id', { method: 'DELETE', url: '/api/collections/posts/records/%E0%A4%A' }],
    ['in the collection', { method: 'POST', url: '/api/collections/po%E0%A4%Asts/records', body: { title: 'x' } }],
    ['in a query value', { method: 'POST', url: '/api/collections/posts/records?fields=%E0%A4%A', body: { title: 'x' } }],
    ['in a query name', { method: 'PATCH', url: '/api/collections/posts/records/abc?%zz=1', body: { title: 'x' } }],
  ];

  it.each(cases)('%s: a 400 naming the request, from a guest, nothing written, nothing logged', async (_name, bad) => {
    logged.length = 0;
    const r = await batch([create, bad]);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      status: 400,
      message: 'Batch transaction failed.',
      data: {
        requests: {
          1: {
            code: 'batch_request_failed',
            message: 'Batch request failed.',
            response: { status: 400, message: 'The request URL holds an invalid percent-encoding.', data: {} },
          },
        },
      },
    });
    expect((await sdk.admin.collection('posts').getList(1, 1)).totalItems).toBe(0);
    expect(logged).toEqual([]);
  });

  it('well-formed escapes still decode: an encoded collection name and query', async () => {
    const r = await batch([{ method: 'POST', url: '/api/collections/%70osts/records?fields=title%2Cid', body: { title: 'a b' } }]);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body[0].body).sort()).toEqual(['id', 'title']);
    expect(r.body[0].body.title).toBe('a b');
  });
});
