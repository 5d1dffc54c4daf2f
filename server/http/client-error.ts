// Requests that node:http refuses before the app sees them (its parser's 16 KiB limit on the request
// line and headers, malformed requests, header timeouts) still answer with the spec's error envelope.
// Node's own answer would be a bare 431 or 400: a long URL, which the parser reaches before our
// MAX_URL_LENGTH check can, is the 414 the app gives shorter over-long URLs. A connection over the
// per-address cap gets its 503 through `refusal` too (connections.ts).
import type { Duplex } from 'node:stream';
import { envelopeJson, GENERIC_MESSAGES } from './envelope.js';
import { MAX_URL_LENGTH } from './request.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large', 503: 'Service Unavailable',
};

type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The status for a parser error: a request line that does not end within the packet (or is over the limit) is a 414. */
export function clientErrorStatus(err: ParserError): [number, string] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const raw = err.rawPacket ?? Buffer.alloc(0);
    const lineEnd = raw.indexOf('\r\n');
    const requestLine = lineEnd !== -1 && / HTTP\/\d\.\d$/.test(raw.subarray(Math.max(0, lineEnd - 9), lineEnd).toString('latin1'));
    if (lineEnd === -1 || (requestLine && lineEnd > MAX_URL_LENGTH / 4)) return [414, GENERIC_MESSAGES[414]];
    return [431, GENERIC_MESSAGES[431]];
  }
  if (err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return [413, GENERIC_MESSAGES[413]];
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, GENERIC_MESSAGES[408]];
  return [400, GENERIC_MESSAGES[400]];
}

/** A node:http `clientError` listener. */
export function answerClientError(err: ParserError, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = clientErrorStatus(err);
  socket.end(refusal(status, message));
}

/** A whole HTTP/1.1 answer with the envelope, for a socket the app never sees; the connection closes after it. */
export function refusal(status: number, message: string, headers: Record<string, string> = {}): string {
  const body = envelopeJson(status, message);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
}
