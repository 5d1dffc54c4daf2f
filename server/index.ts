// startServer(options) → { url, close, ... }: the one entry point both hosts (the CLI and the Electron
// main process) call. Opens the store on the data folder, builds the core and the HTTP app, listens.
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen, type Listener } from 'listhen';
import { createCore, type Core } from './core/index.js';
import { createNodeHandler } from './http/app.js';
import { answerClientError } from './http/client-error.js';
import { limitConnections, type ConnectionLimits } from './http/connections.js';
import { hostCheck } from './http/hosts.js';
import { openStore, type StoreOptions } from './store/db.js';

export interface ServerOptions {
  /** Data folder; null keeps everything in memory. */
  dir: string | null;
  /** Interface to bind: 127.0.0.1 (default) or 0.0.0.0 for the LAN. */
  host?: string;
  /** 8090 by default; 0 takes any free port. */
  port?: number;
  /** Fail when the port is taken instead of moving to another one (the CLI's explicit --http). */
  strictPort?: boolean;
  /** Built admin UI folder; by default dist/renderer of this package when it exists. */
  uiDir?: string | null;
  /** Human-readable log lines (defaults to console.log). */
  log?: (line: string) => void;
  /** Log every request as a structured line. */
  verbose?: boolean;
  /** Called with each new setup token while no superuser exists. */
  onSetupToken?: (token: string, setupUrl: string) => void;
  /** Extra store options (journal threshold...). */
  store?: Omit<StoreOptions, 'dir'>;
  /** Lower or raise the server's resource limits (tests lower them to prove a bound cheaply). */
  limits?: ServerLimits;
}

export interface ServerLimits extends ConnectionLimits {
  /** Bytes one answer may hold (rows read, an expand as repeated); past it a 400. Default 48 MiB. */
  responseBytes?: number;
  /** Request body bytes held in memory at once, all requests together; past it a 503. Default 96 MiB. */
  bodyBytesInFlight?: number;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  core: Core;
  /** The live setup token, while setup is required. */
  setupToken(): string | null;
  setupUrl(): string | null;
  /** Network URLs (empty unless bound to all interfaces). */
  lanUrls(): Promise<string[]>;
  /** Rebinds to another interface on the same port (LAN sharing on/off), keeping the data open. */
  rebind(host: string): Promise<void>;
  close(): Promise<void>;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export function defaultUiDir(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [resolve(here, '../dist/renderer'), resolve(here, '../renderer'), resolve(here, 'renderer')]) {
    if (existsSync(join(candidate, 'index.html')) && existsSync(join(candidate, 'assets'))) return candidate;
  }
  return null;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const host = options.host ?? '127.0.0.1';
  let baseUrl = '';
  let pendingToken: string | null = null;
  const store = await openStore({ log, ...options.store, dir: options.dir });
  const core = await createCore(store, {
    responseBytes: options.limits?.responseBytes,
    onSetupToken(token) {
      if (!baseUrl) {
        pendingToken = token;
        return;
      }
      announceToken(token);
    },
  });
  const announceToken = (token: string) => {
    const url = `${baseUrl}/_/#/setup?token=${token}`;
    log(`Setup token: ${token}`);
    log(`Create the first superuser at ${url}`);
    options.onSetupToken?.(token, url);
  };
  const handler = createNodeHandler(core, {
    uiDir: options.uiDir === undefined ? defaultUiDir() : options.uiDir,
    verbose: options.verbose,
    log: (entry) => log(JSON.stringify({ time: new Date().toISOString(), ...entry })),
    // the policy follows the binding: loopback names only, or also the machine's own while on the LAN
    allowHost: hostCheck(() => current.host),
    bodyBytesInFlight: options.limits?.bodyBytesInFlight,
  });

  let listener: Listener;
  let current = { host, port: options.port ?? 8090 };
  const bind = async (h: string, port: number, strict: boolean): Promise<Listener> => {
    try {
      const l = await listen(handler, {
        hostname: h, port, showURL: false, autoClose: false, isProd: strict, public: h === '0.0.0.0', qr: false, open: false, clipboard: false,
      });
      l.server.keepAliveTimeout = 5000;
      limitConnections(l.server as import('node:http').Server, options.limits);
      l.server.on('clientError', answerClientError);
      return l;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE' || /available port/i.test(String((err as Error).message))) throw new Error(`Port ${port} on ${h} is already in use: choose another with --http HOST:PORT.`);
      throw err;
    }
  };
  try {
    // listhen reads port 0 as "the first free port from 3000": ask the OS for a free one instead
    if (current.port === 0) current.port = await freePort(host);
    listener = await bind(host, current.port, options.strictPort === true || options.port === 0);
  } catch (err) {
    await store.close();
    throw err;
  }
  const sync = () => {
    current = { host: current.host, port: listener.address.port };
    const shown = current.host === '0.0.0.0' ? '127.0.0.1' : current.host.includes(':') ? `[${current.host}]` : current.host;
    baseUrl = `http://${shown}:${current.port}`;
    server.url = baseUrl;
    server.port = current.port;
    server.host = current.host;
  };
  const closeListener = async (l: Listener) => {
    const s = l.server as import('node:http').Server;
    const done = new Promise<void>((res) => s.close(() => res()));
    s.closeIdleConnections?.();
    setTimeout(() => s.closeAllConnections?.(), 2000).unref();
    await done;
  };
  let closed = false;
  const server: RunningServer = {
    url: '', host, port: 0, core,
    setupToken: () => core.setup.token(),
    setupUrl: () => {
      const t = core.setup.token();
      return t ? `${baseUrl}/_/#/setup?token=${t}` : null;
    },
    async lanUrls() {
      if (current.host !== '0.0.0.0') return [];
      const urls = await listener.getURLs();
      return urls.filter((u) => u.type === 'network').map((u) => u.url.replace(/\/$/, ''));
    },
    async rebind(newHost: string) {
      if (newHost === current.host) return;
      await closeListener(listener);
      try {
        listener = await bind(newHost, current.port, true);
      } catch (err) {
        listener = await bind(current.host, current.port, true); // keep serving where we were
        throw err;
      }
      current.host = newHost;
      sync();
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeListener(listener);
      await store.close();
    },
  };
  sync();
  const heldBack = core.setup.heldBack();
  if (pendingToken) announceToken(pendingToken);
  else if (heldBack !== null) log(heldBack);
  else core.setup.issue();
  return server;
}
