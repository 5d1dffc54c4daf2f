// F9: the bytes of request bodies held at once, all requests together, are bounded: a body that would
// pass the budget gets a 503 in the envelope at once (drained, unread), declared lengths counting up
// front and chunked bodies as they arrive, and the bytes come back once a response is sent. (24 bodies
// of 30 MB at once held 830 MB.) The budget is lowered here to 1 MiB to prove it with small bodies.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/index.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { engineServerOptions } from '../support/test-store.js';

const BUDGET = 1024 * 1024;
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, limits: { bodyBytesInFlight: BUDGET }, ...engineServerOptions() });
  const su = await setupSuperuser(server.url, (await server.setupToken())!);
  const r = await http(server.url, 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text', max: 1_000_000 }], createRule: '' } });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => { await server.close(); });

/** A record create whose body arrives in two halves: the second only when `finish()` is called. */
async function slowCreate(size: number, chunked = false) {
  const body = JSON.stringify({ text: 'x'.repeat(size - 12) });
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const half = body.length >> 1;
  const frame = (part: string) => (chunked ? `${part.length.toString(16)}\r\n${part}\r\n` : part);
  socket.write(
    `POST /api/collections/notes/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n` +
      (chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${body.length}\r\n`) + `\r\n${frame(body.slice(0, half))}`,
  );
  const status = async () => {
    await ended;
    return { status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) };
  };
  return {
    finish: () => socket.write(frame(body.slice(half)) + (chunked ? '0\r\n\r\n' : '')),
    answered: () => answer !== '',
    /** The body's bytes, and those of its first half (what the server holds of it before `finish()`). */
    bytes: body.length,
    half,
    status,
  };
}

/** Until the server holds `bytes` of bodies at least (its count, RunningServer.bodyBytesInFlight). */
const holding = (bytes: number) => expect.poll(() => server.bodyBytesInFlight(), { interval: 5, timeout: 5_000 }).toBeGreaterThanOrEqual(bytes);

describe('F9: request body bytes in flight', () => {
  it('declared lengths: a body past what the others hold is refused at once with a 503, and the bytes come back', async () => {
    const first = await slowCreate(400_000);
    const second = await slowCreate(400_000);
    await holding(first.bytes + second.bytes); // both declared lengths taken
    const third = await slowCreate(400_000);
    const refused = await third.status(); // answered without its second half
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('"status":503,"message":"The server is receiving too many large requests at once; try again in a moment."');
    first.finish();
    second.finish();
    expect((await first.status()).status).toBe(200);
    expect((await second.status()).status).toBe(200);
    const again = await slowCreate(900_000);
    again.finish();
    expect((await again.status()).status).toBe(200);
  });

  it('chunked bodies count as they arrive', async () => {
    const first = await slowCreate(700_000, true);
    await holding(first.half);
    const second = await slowCreate(800_000, true); // its first half fits beside the first's
    await holding(first.half + second.half);
    second.finish(); // its second half passes the budget
    expect((await second.status()).status).toBe(503);
    first.finish();
    expect((await first.status()).status).toBe(200);
  });

  it('small bodies are unaffected', async () => {
    const r = await http(server.url, 'POST', '/api/collections/notes/records', { body: { text: 'hello' } });
    expect(r.status).toBe(200);
  });
});
