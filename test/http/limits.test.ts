// Request size limits over a real socket: a body declared over 32 MiB is refused with a 413 before it
// is sent, one streamed without a length is cut off at the limit, and a URL past node's 16 KiB request
// line and header limit is a 414 — all in the spec's envelope.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { RECORD_BODY_BYTES } from '../../server/http/body.js';
import { MAX_URL_LENGTH } from '../../server/http/request.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { engineServerOptions } from '../support/test-store.js';
import { workWatch } from '../fixtures/health-poll.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, ...engineServerOptions() });
  const su = await setupSuperuser(server.url, (await server.setupToken())!);
  await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text', max: 0 }], createRule: '', listRule: '' } });
});
afterAll(async () => { await server.close(); });

interface RawAnswer { status: number; body: unknown; ms: number }

/** The body of a complete response (Content-Length or one chunk of a chunked one), or null while incomplete. */
function responseBody(data: string): string | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const rest = data.slice(end + 4);
  const length = /content-length: (\d+)/i.exec(data.slice(0, end))?.[1];
  if (length !== undefined) return rest.length >= Number(length) ? rest.slice(0, Number(length)) : null;
  const sizeEnd = rest.indexOf('\r\n');
  if (sizeEnd === -1) return null;
  const size = parseInt(rest.slice(0, sizeEnd), 16);
  return rest.length >= sizeEnd + 2 + size ? rest.slice(sizeEnd + 2, sizeEnd + 2 + size) : null;
}

/**
 * Writes `head` (and then `body` chunks, if any, while the server reads) on a fresh socket and
 * resolves with the first response: its status, parsed JSON body, and the time it took.
 */
function rawRequest(head: string, body?: { chunk: Buffer; count: number }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    // the server is this process: the time counted as its work, not what a busy machine adds (workWatch)
    const took = workWatch(process.pid);
    const socket = net.connect(server.port, '127.0.0.1');
    let data = '';
    let sent = 0;
    const pump = () => {
      while (body && sent < body.count && !socket.destroyed) {
        sent++;
        if (!socket.write(body.chunk)) return void socket.once('drain', pump);
      }
    };
    let failure: Error | null = null;
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      const body = responseBody(data);
      if (body === null) return;
      socket.destroy();
      resolve({ status: Number(data.split(' ')[1]), body: JSON.parse(body), ms: took().worked });
    });
    // the server may close its side right after answering while we still write (EPIPE): the answer
    // is then still there to read
    socket.on('error', (e) => (failure = e));
    socket.on('close', () => reject(failure ?? new Error(`closed without a full answer: ${data.slice(0, 200)}`)));
    socket.write(head);
    pump();
  });
}

describe('body size', () => {
  it('a declared Content-Length over the limit is a 413 before any of the body is sent', async () => {
    const r = await rawRequest(`POST /api/collections/notes/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${RECORD_BODY_BYTES + 1}\r\n\r\n`);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, message: 'Request entity too large.', data: {} });
    expect(r.ms).toBeLessThan(2000);
  });

  // Before: a chunked JSON body over the limit made the server throw an uncaught exception (the read was
  // cancelled under the response) and a chunked multipart one was buffered whole, whatever its size.
  it.each([
    ['application/json', ''],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\n'],
  ])('a chunked %s body without a length is cut off at the limit with a 413, and the server lives on', async (type, prefix) => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    chunk.write(prefix);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const r = await rawRequest(
      `POST /api/collections/notes/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      { chunk: framed, count: RECORD_BODY_BYTES / chunk.length + 64 },
    );
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, message: 'Request entity too large.', data: {} });
    // the server runs in this process: an error it threw over the cut-off body would fail the run as an
    // unhandled error, whenever it came; here it still answers
    expect((await http(server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('a client that sends its whole over-limit body anyway (fetch) still gets the 413, and the connection stays usable', async () => {
    const r = await http(server.url, 'POST', '/api/collections/notes/records', { body: { junk: 'x'.repeat(RECORD_BODY_BYTES) } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 413, message: 'Request entity too large.', data: {} });
    expect((await http(server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('a body just under the limit is read (and validated), not refused', async () => {
    // unknown keys are ignored (as PocketBase ignores them): the body is read whole, then the record is created
    const r = await http(server.url, 'POST', '/api/collections/notes/records', { body: { text: 'small', junk: 'x'.repeat(RECORD_BODY_BYTES - 1024) } });
    expect(r.status, r.text.slice(0, 200)).toBe(200);
  });
});

describe('URL length', () => {
  it.each([
    ['just past node\'s header limit', 16 * 1024 + 100],
    ['far past it', 200 * 1024],
  ])('a URL %s is a 414 in the envelope', async (_name, length) => {
    const r = await rawRequest(`GET /api/collections/notes/records?filter=${'a'.repeat(length)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(r.status).toBe(414);
    expect(r.body).toEqual({ status: 414, message: 'Request URL too long.', data: {} });
  });

  it('an oversized header (not the URL) is a 431 in the envelope', async () => {
    const r = await rawRequest(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.body).toEqual({ status: 431, message: 'Request header fields too large.', data: {} });
  });

  it('a malformed request is a 400 in the envelope', async () => {
    const r = await rawRequest('THIS IS NOT HTTP\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, data: {} });
  });

  it('URLs under the limits are served', async () => {
    const r = await http(server.url, 'GET', `/api/collections/notes/records?filter=${encodeURIComponent(`text != "${'c'.repeat(3000)}"`)}`);
    expect(r.status).toBe(200);
    expect(MAX_URL_LENGTH).toBeGreaterThanOrEqual(16 * 1024);
  });
});
