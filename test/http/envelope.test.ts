// What every answer looks like: health, 404s and malformed requests in the error envelope
// `{status, message, data}`, bodies over their limit, CORS preflight and CORS headers on every answer.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { harness, type Harness } from '../support/harness.js';

describe('answers', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  describe('health', () => {
    it('GET answers {status:"ok"}', async () => {
      const r = await h.req('GET', '/api/health');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'ok' });
    });
    it('HEAD answers 200 without a body', async () => {
      const r = await h.req('HEAD', '/api/health');
      expect(r.status).toBe(200);
      expect(r.text).toBe('');
    });
  });

  describe('errors', () => {
    it('unknown routes answer 404 Not found. in the envelope', async () => {
      const r = await h.req('GET', '/api/nope');
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ status: 404, message: 'Not found.', data: {} });
    });
    it('malformed JSON is a 400, not a 500', async () => {
      const r = await h.req('POST', '/api/setup', { raw: '{"token":', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.body.data).toEqual({});
    });
    it('a body over the limit is a 413', async () => {
      const big = 'x'.repeat(33 * 1024 * 1024);
      const r = await h.req('POST', '/api/setup', { raw: JSON.stringify({ token: big }), headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(413);
      expect(r.body.status).toBe(413);
    });
    it('CORS preflight is answered for other origins', async () => {
      const r = await h.req('OPTIONS', '/api/collections/users/records', { headers: { origin: 'http://192.168.1.5:3000', 'access-control-request-method': 'POST' } });
      expect(r.status).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    });
  });
});

// over a real socket, the answers h3 builds itself (JSON, errors, HEAD) and a streamed one alike
describe('CORS on the server', () => {
  let server: RunningServer;
  beforeAll(async () => { server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined }); });
  afterAll(async () => { await server.close(); });

  it('every answer carries the CORS headers: JSON, an error envelope, an event stream, a HEAD', async () => {
    const cors = { origin: '*', methods: 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS', headers: 'authorization, content-type, accept, x-requested-with', maxAge: '86400' };
    const health = await fetch(`${server.url}/api/health`);
    const missing = await fetch(`${server.url}/api/nope`);
    const head = await fetch(`${server.url}/api/health`, { method: 'HEAD' });
    const stream = new AbortController();
    const events = await fetch(`${server.url}/api/realtime`, { signal: stream.signal });
    for (const headers of [health.headers, missing.headers, head.headers, events.headers]) {
      expect(headers.get('access-control-allow-origin')).toBe(cors.origin);
      expect(headers.get('access-control-allow-methods')).toBe(cors.methods);
      expect(headers.get('access-control-allow-headers')).toBe(cors.headers);
      expect(headers.get('access-control-max-age')).toBe(cors.maxAge);
    }
    // an answer's own headers are kept
    expect(health.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=UTF-8');
    stream.abort();
  });
});
