// The ceiling: a bare node:http server answering, from memory, the very responses Deskbase gave for
// the same requests (status, headers, JSON body). What it serves per second is the most Node HTTP
// does on this machine for these bodies; Deskbase's figure over it is the ratio the bench reports.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CapturedResponse } from './protocol.js';
import { routeKey } from './protocol.js';

const NOT_FOUND: CapturedResponse = { status: 404, headers: { 'content-type': 'application/json' }, body: '{"status":404}' };

export function startCeiling(routes: Record<string, CapturedResponse>): Promise<{ server: Server; url: string }> {
  const table = new Map(Object.entries(routes));
  const server = createServer((req, res) => {
    const answer = () => {
      const r = table.get(routeKey(req.method ?? 'GET', req.url ?? '/')) ?? NOT_FOUND;
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    };
    // a POST is answered once its body is read, as Deskbase must
    if (req.method === 'POST') {
      req.on('data', () => undefined);
      req.on('end', answer);
    } else {
      answer();
    }
  });
  return listenBare(server);
}

/** A bare server of the bench (the ceiling, the floor) on a loopback port, kept alive as startServer keeps it. */
export function listenBare(server: Server): Promise<{ server: Server; url: string }> {
  server.keepAliveTimeout = 5000; // as startServer sets it
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}
