// The key a client's requests are counted under: its network address, normalised so that one host
// cannot spread its requests over many keys.

/**
 * Who a request is charged to (its connections, and through RequestInfo.client its password hashes and
 * sign-in blocks): the client's network address, IPv6 addresses by their /64 (one host commonly holds a
 * whole /64, and could otherwise rotate through it), IPv4-mapped ones as IPv4.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === '') return '';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1];
  if (!address.includes(':')) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
