// The key a client's requests are counted under: its network address (behind a trusted proxy, the one
// the proxy's header names: realAddress), normalised so that one host cannot spread its requests over many keys.
import { isIP } from 'node:net';

/**
 * Who a request is charged to (its connections, and through RequestInfo.client its password hashes and
 * sign-in blocks): the client's network address, IPv6 addresses by their /64 (one host commonly holds a
 * whole /64, and could otherwise rotate through it), IPv4-mapped ones as IPv4.
 */
export function clientKey(address: string | undefined): string {
  // asked for every request and every connection, mostly of the last address again (a client's
  // connections, the desktop's one local address): that one's key is kept
  if (address === last.address && address !== undefined) return last.key;
  const expanded = expandedIp(address);
  const key = !expanded.includes(':') ? expanded : `${expanded.split(':').slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
  last.address = address;
  last.key = key;
  return key;
}

/** The last address clientKey was asked for, and its key. */
const last: { address: string | undefined; key: string } = { address: undefined, key: '' };

/** An address as Go's netip StringExpanded writes it (IPv4-mapped IPv6 as IPv4); '' for none. */
export function expandedIp(address: string | undefined): string {
  if (!address) return '';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1];
  if (!address.includes(':')) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/** What the settings' `trustedProxy` says (core/settings.ts). */
export interface TrustedProxy {
  headers: readonly string[];
  useLeftmostIP: boolean;
}

/**
 * The client's address as PocketBase's RealIP reads it: the first of the trusted `headers` the request
 * has, its last occurrence (the one the proxy added), the rightmost valid address in it (the leftmost
 * with `useLeftmostIP`, which a client can forge behind some proxies); else the socket's address.
 * `raw` is the request's headers as received, name and value alternating (node's rawHeaders).
 */
export function realAddress(socketAddress: string | undefined, raw: readonly string[], proxy: TrustedProxy): string | undefined {
  for (const header of proxy.headers) {
    const name = header.toLowerCase();
    let value: string | undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === name) value = raw[i + 1];
    if (value === undefined || value === '') continue;
    const ips = value.split(',').map((s) => s.trim());
    if (!proxy.useLeftmostIP) ips.reverse();
    const ip = ips.find((s) => isIP(s) !== 0);
    if (ip !== undefined) return ip;
  }
  return socketAddress;
}
