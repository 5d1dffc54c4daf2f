// The request's body as a stream, taken once, and the one way to drop what is left of a refused body.
import { Readable } from 'node:stream';
import type { H3Event } from 'h3';

/**
 * The body as a stream: node's request where there is one (`event.req.body` would start a second reader
 * of the same bytes), else the web body; null when there is none or it was read already. Take it before
 * anything awaits.
 */
export function requestStream(event: H3Event): Readable | null {
  const node = event.runtime?.node?.req;
  if (node !== undefined) return node.readableEnded ? null : node;
  const web = event.req.body;
  return web ? Readable.fromWeb(web as import('node:stream/web').ReadableStream<Uint8Array>) : null;
}

/**
 * Reads and drops what is left of a refused body, as node:http does for a body nobody read, so the
 * answer (a 413, a 400) reaches the client whole. Not destroying the stream: on node's request that
 * destroys the socket under the response on its way out, and listhen's http-shutdown then throws in the
 * response's 'finish' (an uncaught exception that stopped the server); nor closing the connection, which
 * resets it while the client still sends and can lose the answer.
 */
export function drain(source: Readable): void {
  source.removeAllListeners('data');
  source.on('data', () => undefined);
  source.resume();
}
