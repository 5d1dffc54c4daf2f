// What every answer looks like: health, 404s and malformed requests in the error envelope
// `{status, message, data}`, bodies over their limit, CORS preflight.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
