// The listening socket, through listhen (it prints nothing here, but finds the LAN addresses). Owns
// listhen's workarounds: port 0 means "any free port" (listhen reads it as "the first free one from
// 3000"), `isProd` keeps the asked port instead of moving to another, `autoClose: false` leaves
// SIGINT/SIGTERM to the host (listhen would exit before the final checkpoint), and close() also ends
// keep-alive connections so no handle stays open. Every socket it binds gets the connection limits
// (connections.ts).
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { listen, type Listener } from 'listhen';
import { answerClientError } from './client-error.js';
import { limitConnections, type ConnectionLimits } from './connections.js';

type NodeHandler = Parameters<typeof listen>[0];

/** PEM texts of the certificate chain and its key; asked again at every bind (an address may have changed). */
export type TlsSource = () => Promise<{ cert: string; key: string }>;

/** This machine's IPv4 addresses other devices can reach (not loopback, not link-local). */
export function lanAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) out.push(a.address);
    }
  }
  return out;
}

/** Binds `host:port` for a moment (0: any free port): the port it got, or null when it cannot be bound. The desktop shell asks it too (main/ports.ts). */
export function probePort(host: string, port: number): Promise<number | null> {
  return new Promise((resolvePort) => {
    const probe = createNetServer();
    probe.once('error', () => resolvePort(null));
    probe.listen({ host, port }, () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      probe.close(() => resolvePort(bound));
    });
  });
}

async function freePort(host: string): Promise<number> {
  const port = await probePort(host, 0);
  if (port === null) throw new Error(`No port can be bound on ${host}.`);
  return port;
}

async function bind(handler: NodeHandler, host: string, port: number, strict: boolean, limits: ConnectionLimits, tls: TlsSource | null): Promise<Listener> {
  // listhen takes PEM texts as they are (a value starting with "--"), file paths otherwise
  const https = tls ? await tls() : false;
  try {
    const l = await listen(handler, {
      hostname: host, port, showURL: false, autoClose: false, isProd: strict, public: host === '0.0.0.0', qr: false, open: false, clipboard: false, https,
    });
    l.server.keepAliveTimeout = 5000;
    limitConnections(l.server as Server, limits);
    l.server.on('clientError', answerClientError);
    return l;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE' || /available port/i.test(String((err as Error).message))) throw new Error(`Port ${port} on ${host} is already in use: choose another with --http HOST:PORT.`, { cause: err });
    throw err;
  }
}

async function closeListener(l: Listener): Promise<void> {
  const s = l.server as Server;
  const done = new Promise<void>((res) => s.close(() => res()));
  s.closeIdleConnections?.();
  setTimeout(() => s.closeAllConnections?.(), 2000).unref();
  await done;
}

export class Binding {
  private constructor(
    private listener: Listener,
    private readonly handler: NodeHandler,
    /** The interface bound: 127.0.0.1, 0.0.0.0 (the LAN), ... */
    public host: string,
    public readonly port: number,
    private readonly limits: ConnectionLimits,
    private readonly tls: TlsSource | null,
  ) {}

  /**
   * Listens on `host:port` (0: a free port); `strict` fails when that port is taken instead of moving on.
   * With `tls`, the server speaks HTTPS only.
   */
  static async open(handler: NodeHandler, host: string, port: number, strict: boolean, limits: ConnectionLimits = {}, tls: TlsSource | null = null): Promise<Binding> {
    const chosen = port === 0 ? await freePort(host) : port;
    const listener = await bind(handler, host, chosen, strict || port === 0, limits, tls);
    return new Binding(listener, handler, host, listener.address.port, limits, tls);
  }

  get scheme(): 'http' | 'https' {
    return this.tls ? 'https' : 'http';
  }

  /** The server's base URL (127.0.0.1 when bound to every interface). */
  get url(): string {
    const shown = this.host === '0.0.0.0' ? '127.0.0.1' : this.host.includes(':') ? `[${this.host}]` : this.host;
    return `${this.scheme}://${shown}:${this.port}`;
  }

  /** Network URLs (empty unless bound to all interfaces). */
  async lanUrls(): Promise<string[]> {
    if (this.host !== '0.0.0.0') return [];
    const urls = await this.listener.getURLs();
    return urls.filter((u) => u.type === 'network').map((u) => u.url.replace(/\/$/, '').replace(/^https?:/, `${this.scheme}:`));
  }

  /** Binds another interface on the same port; on failure it goes on serving where it was. */
  async rebind(host: string): Promise<void> {
    if (host === this.host) return;
    await closeListener(this.listener);
    try {
      this.listener = await bind(this.handler, host, this.port, true, this.limits, this.tls);
    } catch (err) {
      this.listener = await bind(this.handler, this.host, this.port, true, this.limits, this.tls);
      throw err;
    }
    this.host = host;
  }

  close(): Promise<void> {
    return closeListener(this.listener);
  }
}
