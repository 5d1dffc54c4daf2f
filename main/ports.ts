// The desktop app prefers a stable port (the UI's origin, hence its stored session, depends on it) but
// must start even when another program holds it, so it looks a few ports further, then takes any.
import { probePort } from '../server/index.js';

export const PREFERRED_PORT = 8090;
/** How many ports after the preferred one are tried before letting the OS choose. */
export const NEARBY_PORTS = 10;

export async function isPortFree(host: string, port: number): Promise<boolean> {
  return (await probePort(host, port)) !== null;
}

/** The preferred port if free, else the next free one among NEARBY_PORTS, else 0 (any free port). */
export async function choosePort(host: string, preferred: number, free = isPortFree): Promise<number> {
  if (preferred === 0) return 0;
  for (let port = preferred; port < preferred + NEARBY_PORTS && port <= 65535; port++) {
    if (await free(host, port)) return port;
  }
  return 0;
}
