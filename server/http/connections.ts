// Connections, bounded: each costs a file descriptor for as long as it stays open, and 1,100 clients
// trickling request bodies under a 1,024-descriptor limit left the server unable to accept anything (its
// own files included) for as long as they kept at it, since node's defaults allow any number of
// connections and 300 s per request.
// - at most `maxConnections` at once (node refuses more at accept), kept well under the descriptor
//   limit so the journal, snapshots and workers always have theirs;
// - at most `perAddress` from one client address (IPv6 by its /64): one device on the LAN cannot take
//   them all. One more from that address is answered, not reset: node:http never sees it; its first
//   bytes (the request) are read and answered with the envelope's 503 and `Retry-After`, then it is
//   closed, whatever else it sends read and dropped meanwhile, within 2 s at most (a script's 200
//   parallel requests see a clear error, not ECONNRESET);
// - a connection with no bytes either way for `idleMs` is closed (slow headers, a stalled body, a client
//   gone quiet), except while the server itself is at work: a whole request received and its answer not
//   begun (a backup of a GiB database takes longer than `idleMs`, and its client was cut off at 30 s);
//   headers must be complete within `headersTimeoutMs` and a whole request within `requestTimeoutMs`
//   however slowly it trickles (node checks these two every 30 s).
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from './client-key.js';
import { refusal } from './client-error.js';

export interface ConnectionLimits {
  /** Connections open at once; by default from the descriptor limit (see defaultMaxConnections). */
  maxConnections?: number;
  /** Connections from one client address at once. Default 128. */
  perAddress?: number;
  /** Inactivity (no bytes either way) after which a connection is closed. Default 30 s. */
  idleMs?: number;
  /** Time to receive a request's headers. Default 20 s. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request. Default 120 s (a 32 MiB body at 300 KB/s). */
  requestTimeoutMs?: number;
}

/** Descriptors kept for everything but connections: data files, the lock, workers, the admin UI's files. */
const RESERVED_DESCRIPTORS = 128;

/**
 * The soft limit on open files (Linux: /proc/self/limits; node has already raised it to the hard limit
 * where it could) less a reserve, between 64 and 4,096. Where it cannot be read (macOS, Windows), 1,024.
 */
export function defaultMaxConnections(limitsFile = '/proc/self/limits'): number {
  let limit = 1024 + RESERVED_DESCRIPTORS;
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limitsFile, 'utf8'));
    if (m) limit = m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    // not Linux
  }
  return Math.max(64, Math.min(4096, limit - RESERVED_DESCRIPTORS));
}

export function limitConnections(server: Server, limits: ConnectionLimits = {}): void {
  server.maxConnections = limits.maxConnections ?? defaultMaxConnections();
  server.timeout = limits.idleMs ?? 30_000;
  server.headersTimeout = limits.headersTimeoutMs ?? 20_000;
  server.requestTimeout = limits.requestTimeoutMs ?? 120_000;
  // node asks a response's 'timeout' listeners before it closes an idle connection: while the request
  // is whole and the answer has not begun, the silence is the server's own work, not the client's; the
  // timer runs again from the answer's first bytes (a reader that then stalls is closed as before)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.on('timeout', (socket: Socket) => {
      if (!(req.complete && !res.headersSent)) socket.destroy();
    });
  });
  const perAddress = limits.perAddress ?? 128;
  const open = new Map<string, number>();
  // node:http (and listhen) take each accepted socket through 'connection': only those within the cap
  // are handed on to them
  const http = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const key = clientKey(socket.remoteAddress);
    const count = (open.get(key) ?? 0) + 1;
    if (count > perAddress) {
      refuseOverCap(socket);
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
    for (const listener of http) listener.call(server, socket);
  });
}

/** Seconds a client over the cap is asked to wait: connections of a burst come and go in moments. */
export const OVER_CAP_RETRY_SECONDS = 1;
/** How long an over-cap connection may take to send its request (then it is answered anyway), and to go. */
const OVER_CAP_WAIT_MS = 500;
const OVER_CAP_CLOSE_MS = 2000;

/**
 * Answers a connection over its address's cap with a 503 once its request arrives (an answer before the
 * request reads as a broken server to HTTP clients), then closes it. Its bytes are read and dropped until
 * the client closes its side: a socket closed with unread bytes is reset, and the client would see that
 * instead of the answer.
 */
function refuseOverCap(socket: Socket): void {
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    socket.end(refusal(503, 'Too many connections from this address at once; try again in a moment.', { 'Retry-After': String(OVER_CAP_RETRY_SECONDS) }));
  };
  const wait = setTimeout(answer, OVER_CAP_WAIT_MS).unref();
  const hard = setTimeout(() => socket.destroy(), OVER_CAP_CLOSE_MS).unref();
  socket.on('data', answer);
  socket.on('end', answer); // the client's side is done: the socket closes once the answer is out
  socket.on('error', () => socket.destroy());
  socket.once('close', () => {
    clearTimeout(wait);
    clearTimeout(hard);
  });
}
