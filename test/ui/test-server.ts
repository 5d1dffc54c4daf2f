// A tiny node:http server answering with spec-shaped responses, so the api client and the inputs that
// fetch (relation picker) run over real HTTP. CORS headers because happy-dom enforces them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  authorization?: string;
  body: unknown;
}

/** A JSON body, or raw bytes with their own headers (a file download). */
export type Reply = { status: number; body?: unknown; raw?: Uint8Array; headers?: Record<string, string> };
export type Handler = (req: SeenRequest) => Reply;

export interface TestServer {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export async function startTestServer(handler: Handler): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'authorization, content-type, accept');
    res.setHeader('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS');
    // Cross-origin, a script reads only the headers it is allowed to (same-origin in the app).
    res.setHeader('access-control-expose-headers', 'content-disposition');
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const seenReq: SeenRequest = { method: req.method ?? 'GET', url: req.url ?? '/', authorization: req.headers.authorization, body: await readBody(req) };
    seen.push(seenReq);
    const reply = handler(seenReq);
    if (reply.raw) {
      res.writeHead(reply.status, reply.headers ?? {}).end(Buffer.from(reply.raw));
      return;
    }
    if (reply.body === undefined) {
      res.writeHead(reply.status).end();
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
