import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createApi, errorAt, errorUnder, storageTokenStore } from '../../renderer/api.js';
import { startTestServer, type TestServer } from './test-server.js';

const TOKEN = 'a'.repeat(43);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer((req) => {
    const path = req.url.replace(/\?.*$/, '');
    const authed = req.authorization === `Bearer ${TOKEN}`;
    if (path === '/api/setup' && req.method === 'GET') return { status: 200, body: { required: false } };
    if (path === '/api/collections/_superusers/auth-with-password') {
      const b = req.body as { identity: string; password: string };
      return b.password === 'right-password'
        ? { status: 200, body: { token: TOKEN, record: { id: 'u1', collectionId: '_superusers', collectionName: '_superusers', email: b.identity } } }
        : { status: 400, body: { status: 400, message: 'Failed to authenticate.', data: {} } };
    }
    if (path === '/api/session' && req.method === 'GET') return { status: 200, body: authed ? { id: 's1', current: true } : null };
    if (path === '/api/session' && req.method === 'DELETE') return { status: 204 };
    if (path === '/api/collections' && req.method === 'POST')
      return { status: 400, body: { status: 400, message: 'Failed to create collection.', data: { listRule: { code: 'validation_invalid_rule', message: 'Invalid rule. Raw error: unknown field "nope".' } } } };
    if (path.startsWith('/api/collections')) {
      if (!authed) return { status: 401, body: { status: 401, message: 'The request requires valid record authorization token.', data: {} } };
      return { status: 200, body: { page: 1, perPage: 30, totalItems: 0, totalPages: 0, items: [] } };
    }
    if (path === '/api/plain-text') return { status: 500, body: undefined };
    return { status: 404, body: { status: 404, message: 'Not found.', data: {} } };
  });
});
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  server.seen.length = 0;
});

function client(onUnauthorized?: () => void) {
  return createApi({ baseUrl: server.baseUrl, store: storageTokenStore(localStorage), onUnauthorized });
}

describe('api client', () => {
  it('signs in, keeps the token in localStorage and sends it as a bearer token', async () => {
    const api = client();
    const res = await api.authWithPassword('_superusers', 'me@example.com', 'right-password');
    expect(res.record.email).toBe('me@example.com');
    expect(localStorage.getItem('deskbase.token')).toBe(TOKEN);
    // A fresh client (a reload) finds the token again.
    const again = client();
    expect(await again.getSession()).toMatchObject({ id: 's1', current: true });
    expect(server.seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('returns null for GET /session when signed out', async () => {
    expect(await client().getSession()).toBeNull();
    expect(server.seen.at(-1)?.authorization).toBeUndefined();
  });

  it.each([
    ['wrong password', (api: ReturnType<typeof client>) => api.authWithPassword('_superusers', 'x@y.z', 'wrong'), 400, 'Failed to authenticate.', {}],
    ['invalid rule', (api: ReturnType<typeof client>) => api.createCollection({ name: 'posts', listRule: 'nope = 1' }), 400, 'Failed to create collection.', { listRule: { code: 'validation_invalid_rule', message: 'Invalid rule. Raw error: unknown field "nope".' } }],
    ['unknown route', (api: ReturnType<typeof client>) => api.request('GET', '/nowhere'), 404, 'Not found.', {}],
  ])('throws an ApiError carrying the envelope: %s', async (_name, call, status, message, data) => {
    const err = await call(client()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status, message, data });
  });

  it('throws an ApiError with the status text when the body is not an envelope', async () => {
    const err = await client().request('GET', '/plain-text').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
    expect((err as ApiError).data).toEqual({});
  });

  it('drops the token on 401 and tells the UI', async () => {
    localStorage.setItem('deskbase.token', 'stale-token');
    let told = 0;
    const api = client(() => told++);
    const err = await api.listCollections().catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(401);
    expect(localStorage.getItem('deskbase.token')).toBeNull();
    expect(told).toBe(1);
  });

  it('sends list parameters in the query string and leaves empty ones out', async () => {
    localStorage.setItem('deskbase.token', TOKEN);
    await client().listRecords('posts', { page: 2, perPage: 10, sort: '-created', filter: 'title ~ "a b"', expand: '', skipTotal: true });
    const url = new URL(server.seen.at(-1)?.url ?? '', 'http://x');
    expect(url.pathname).toBe('/api/collections/posts/records');
    expect(Object.fromEntries(url.searchParams)).toEqual({ page: '2', perPage: '10', sort: '-created', filter: 'title ~ "a b"', skipTotal: 'true' });
  });

  it('signs out with DELETE /session and forgets the token even on 204', async () => {
    localStorage.setItem('deskbase.token', TOKEN);
    const api = client();
    await expect(api.signOut()).resolves.toBeUndefined();
    expect(server.seen.at(-1)?.method).toBe('DELETE');
    expect(localStorage.getItem('deskbase.token')).toBeNull();
  });
});

describe('error lookup', () => {
  const data = {
    name: { code: 'validation_required', message: 'Cannot be blank.' },
    fields: { '2': { name: { code: 'validation_duplicated_field_name', message: 'Duplicated name.' } } },
    indexes: { '0': { fields: { code: 'x', message: 'Unknown field.' } } },
  };
  it.each([
    ['name', 'Cannot be blank.'],
    ['fields.2.name', 'Duplicated name.'],
    ['fields.1.name', undefined],
    ['fields', undefined],
    ['listRule', undefined],
  ])('errorAt(%s)', (path, expected) => expect(errorAt(data, path)).toBe(expected));
  it('errorUnder finds nested messages', () => expect(errorUnder(data, 'indexes.0')).toBe('Unknown field.'));
});
