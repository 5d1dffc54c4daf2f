// DNS rebinding: a web page on attacker.example can make its own name resolve to 127.0.0.1 and then
// talk to a loopback-only Deskbase as "same origin". The browser still sends `Host: attacker.example`,
// so a request is only served when its Host names this server: while bound to loopback, a loopback name
// or address; while shared on the LAN, also the machine's own addresses and host names. A Host that is
// an IP address (any spelling the URL parser reads as one) never went through DNS.
import { hostname, networkInterfaces } from 'node:os';

/** Bind addresses that serve every interface (LAN sharing). */
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]']);

/** The hostname of a Host header value (lower case, brackets kept for IPv6, no trailing dot), or null. */
export function hostnameOf(host: string): string | null {
  // the URL parser would also take userinfo, paths and the like: a Host has none
  if (!/^[A-Za-z0-9._~%\-[\]:]+$/.test(host)) return null;
  try {
    const url = new URL(`http://${host}/`);
    return url.hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** `localhost` and its subdomains (browsers resolve them to loopback without DNS), 127.0.0.0/8, ::1. */
export function isLoopback(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(name)) return true;
  return name === '[::1]' || /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|127\.\d+\.\d+\.\d+)\]$/.test(name);
}

/** The machine's addresses and names, as hostnameOf spells them; read again at most every few seconds. */
function ownNames(): () => Set<string> {
  let cached: { at: number; names: Set<string> } | null = null;
  return () => {
    if (cached && Date.now() - cached.at < 5000) return cached.names;
    const names = new Set<string>();
    for (const list of Object.values(networkInterfaces())) {
      for (const info of list ?? []) {
        const address = info.address.toLowerCase().split('%')[0];
        names.add(info.family === 'IPv6' ? `[${address}]` : address);
      }
    }
    const own = hostname().toLowerCase().replace(/\.$/, '');
    if (own !== '') {
      const short = own.split('.')[0];
      for (const name of [own, short, `${short}.local`]) names.add(name);
    }
    cached = { at: Date.now(), names };
    return names;
  };
}

/**
 * A check of the Host header for a server bound to `boundHost()` (read on each request, so a rebind
 * switches the policy at once). A request without a Host (HTTP/1.0) did not come from a browser.
 */
export function hostCheck(boundHost: () => string): (host: string | null) => boolean {
  const own = ownNames();
  // answers by Host header, for the binding they were given under (nearly every request repeats a Host)
  let answers = new Map<string, boolean>();
  let answeredFor = '';
  const decide = (host: string, bound: string): boolean => {
    const name = hostnameOf(host);
    if (name === null) return false;
    if (isLoopback(name)) return true;
    if (isLoopback(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound)) return false;
    return own().has(name) || (!ALL_INTERFACES.has(bound) && name === bound);
  };
  return (host) => {
    if (host === null || host === '') return true;
    const bound = boundHost().toLowerCase();
    if (bound !== answeredFor || answers.size > 256) {
      answers = new Map();
      answeredFor = bound;
    }
    let ok = answers.get(host);
    if (ok === undefined) {
      ok = decide(host, bound);
      // a refusal is not kept while on the LAN: the machine's addresses may change (DHCP, a new network)
      if (ok || isLoopback(bound)) answers.set(host, ok);
    }
    return ok;
  };
}
