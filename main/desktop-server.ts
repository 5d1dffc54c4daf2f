// Starts the one server (server/index.ts) the way the desktop app needs it: on the data folder, bound to
// 127.0.0.1 (or every interface when LAN sharing was left on), on a stable port when it can.
import type { RunningServer, ServerOptions } from '../server/index.js';
import { choosePort, isPortFree, PREFERRED_PORT } from './ports.js';

export type StartServer = (options: ServerOptions) => Promise<RunningServer>;

export const LOOPBACK = '127.0.0.1';
export const ALL_INTERFACES = '0.0.0.0';

export interface DesktopServerOptions {
  startServer: StartServer;
  dataDir: string;
  /** The built Admin UI (dist/renderer); null serves the "not built" page. */
  uiDir: string | null;
  lan: boolean;
  /** Serve HTTPS with Deskbase's own certificate (kept in the data folder's tls/). */
  https?: boolean;
  preferredPort?: number;
  log?: (line: string) => void;
  onSetupToken?: (token: string, setupUrl: string) => void;
}

export async function startDesktopServer(options: DesktopServerOptions): Promise<RunningServer> {
  const host = options.lan ? ALL_INTERFACES : LOOPBACK;
  const start = (port: number) =>
    options.startServer({
      dir: options.dataDir, host, port, strictPort: true, uiDir: options.uiDir, log: options.log, onSetupToken: options.onSetupToken,
      https: options.https ? true : undefined,
      // pb_hooks beside the data folder (server/index.ts), reloaded when a file changes, as PocketBase's --hooksWatch
      hooksWatch: true,
    });
  const port = await choosePort(host, options.preferredPort ?? PREFERRED_PORT);
  try {
    return await start(port);
  } catch (err) {
    // Another program may take the port between the probe and the bind: any free port will do then.
    // Any other failure (the data folder locked by another process...) is the caller's to report.
    if (port === 0 || (await isPortFree(host, port))) throw err;
    return start(0);
  }
}

/**
 * What the app says when the preferred port was taken and the server listens elsewhere: the admin UI's
 * sign-in is kept per origin (scheme, host and port), so a new port signs the user out of it, and apps
 * pointed at the old address must follow. null when the server got the port it asked for.
 */
export function portNotice(preferred: number, actual: number): string | null {
  if (preferred === actual) return null;
  return (
    `Port ${preferred} is used by another program, so Deskbase is on port ${actual} this time. ` +
    `The admin UI keeps its sign-in per address, so you may have to sign in again, and apps using port ${preferred} ` +
    `must use ${actual} (or close the other program and restart Deskbase). You can choose another fixed port in Sharing & data.`
  );
}
