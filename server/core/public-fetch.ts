// GETs of URLs a third party chose (an OAuth2 user's picture), only to public addresses: a URL naming
// this machine or its networks (loopback, private, link-local, unique-local, multicast, unspecified...,
// IPv4 and IPv6, IPv4 inside IPv6 too) never makes the server ask it anything (server-side request
// forgery). The host is resolved once and the connection made to the very address checked (a second
// DNS answer between check and connect cannot move it: DNS rebinding); each redirect is checked the same
// way, a few at most. Hosts the admin configured (an OAuth2 provider's) are trusted as set.
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

const v4 = (text: string): bigint => text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);

/** An IPv6 address (after isIP said so) as a 128-bit number. */
function v6(text: string): bigint {
  let s = text.split('%')[0]!.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4(dotted[2]!);
    s = `${dotted[1]}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const [head, tail] = s.includes('::') ? s.split('::') as [string, string] : [s, null];
  const h = groups(head);
  const t = tail === null ? [] : groups(tail);
  const all = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

type Range = [base: bigint, prefix: number];
const within = (n: bigint, bits: number, [base, prefix]: Range) => n >> BigInt(bits - prefix) === base >> BigInt(bits - prefix);

/** IPv4 blocks no public host has (RFC 6890's special-purpose registry). */
const V4_NOT_PUBLIC: Range[] = ([
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const).map(([a, p]) => [v4(a), p]);

/** IPv6 blocks whose last 32 bits are an IPv4 address (IPv4-mapped, NAT64's well-known prefix). */
const V6_EMBEDDING: Range[] = [[v6('::ffff:0:0'), 96], [v6('64:ff9b::'), 96]];
const SIX_TO_FOUR: Range = [v6('2002::'), 16];
/** Global unicast, less its special-purpose blocks (IETF protocol assignments with Teredo, documentation). */
const V6_GLOBAL: Range = [v6('2000::'), 3];
const V6_NOT_PUBLIC: Range[] = [[v6('2001::'), 23], [v6('2001:db8::'), 32], [v6('3fff::'), 20]];

/** Whether `address` (an IP address) is one of the public Internet's: a host of this machine's own networks is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) {
    const n = v4(address);
    return !V4_NOT_PUBLIC.some((r) => within(n, 32, r));
  }
  if (family !== 6) return false;
  const n = v6(address);
  if (V6_EMBEDDING.some((r) => within(n, 128, r))) return isPublicAddress(ipv4Of(n & 0xffffffffn));
  if (within(n, 128, SIX_TO_FOUR)) return isPublicAddress(ipv4Of((n >> 80n) & 0xffffffffn));
  return within(n, 128, V6_GLOBAL) && !V6_NOT_PUBLIC.some((r) => within(n, 128, r));
}

const ipv4Of = (n: bigint): string => [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 0xffn)).join('.');

export interface PublicGetOptions {
  /** Hosts (`host[:port]`, as URL.host spells them) connected to as they resolve, whatever their address. */
  trustedHosts: ReadonlySet<string>;
  /** Redirects followed at most. */
  maxRedirects: number;
  /** Ends the whole GET, redirects and body included. */
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/** `promise`, or the signal's reason once it aborts first. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason as Error);
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

/** How to reach `url`'s host: its trusted name as it resolves, or the one public address it resolved to now (throws when it has another). */
async function addressOf(url: URL, options: PublicGetOptions): Promise<LookupFunction | undefined> {
  if (options.trustedHosts.has(url.host)) return undefined;
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(name);
  const found = family !== 0 ? [{ address: name, family }] : await unlessAborted(lookup(name, { all: true, verbatim: true }), options.signal);
  const refused = found.find((a) => !isPublicAddress(a.address));
  if (found.length === 0 || refused) throw new Error(`${url.host} is ${refused?.address ?? 'no address'}, not a public address`);
  const { address, family: pinnedFamily } = found[0]!;
  // the connection goes to this address, whatever the resolver would answer next
  return (_host, opts, callback) => {
    if (opts.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family: pinnedFamily }]);
    else callback(null, address, pinnedFamily);
  };
}

function get(url: URL, pinned: LookupFunction | undefined, options: PublicGetOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request({
      protocol: url.protocol, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port || undefined,
      path: `${url.pathname}${url.search}`, method: 'GET', agent: false, signal: options.signal,
      headers: { 'accept-encoding': 'identity', ...options.headers }, ...(pinned ? { lookup: pinned } : {}),
    }, resolve);
    req.on('error', reject);
    req.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The answer to a GET of `url` (http or https only), after at most `maxRedirects` redirects, each hop
 * to a trusted host or a public address; rejects when a hop is refused. The caller reads or destroys it.
 */
export async function getPublic(url: string, options: PublicGetOptions): Promise<IncomingMessage> {
  let at = new URL(url);
  for (let hop = 0; ; hop++) {
    if (at.protocol !== 'http:' && at.protocol !== 'https:') throw new Error(`${at.protocol} is not http or https`);
    const res = await get(at, await addressOf(at, options), options);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return res;
    res.destroy();
    if (hop >= options.maxRedirects) throw new Error(`more than ${options.maxRedirects} redirects`);
    at = new URL(location, at);
  }
}
