// Sockets for the desktop tests: real ports, real listeners.
import { createServer, type Server } from 'node:net';

/**
 * A port the OS says is free right now. Tests pass it explicitly: the server maps port 0 to the first
 * free port from 3000 (listhen's get-port-please), which parallel test files would race for.
 */
export async function osFreePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await closeListener(s);
  return port;
}

/** Holds host:port with a plain TCP listener, as another program would. */
export function occupy(port: number, host = '127.0.0.1'): Promise<Server> {
  const s = createServer();
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, host, () => resolve(s));
  });
}

export function closeListener(s: Server): Promise<void> {
  return new Promise((r) => s.close(() => r()));
}
