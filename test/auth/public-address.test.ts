// The address policy of outbound GETs to URLs a third party chose (server/core/public-fetch.ts, an
// OAuth2 user's picture): which IP addresses count as the public Internet's. The HTTP side (a loopback
// server never asked, redirects checked) is test/auth/oauth2.test.ts's.
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../server/core/public-fetch.js';

describe('isPublicAddress', () => {
  it('refuses IPv4 loopback, private, shared, link-local, unspecified, multicast, reserved and documentation blocks', () => {
    for (const a of ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254',
      '0.0.0.0', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255', '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('refuses IPv6 loopback, unspecified, link-local, unique-local, multicast, documentation, and IPv4 ones inside IPv6 (mapped, NAT64, 6to4)', () => {
    for (const a of ['::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'ff05::2', '2001:db8::1', '2001::1', '100::1', '::127.0.0.1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2002:c0a8:101::1']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('takes public unicast addresses, IPv4 and IPv6, and a public IPv4 inside IPv6', () => {
    for (const a of ['1.1.1.1', '8.8.8.8', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.63.255.255', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it('refuses what is no IP address', () => {
    for (const a of ['', 'localhost', 'example.com', '1.2.3', '::ffff:1.2.3.4.5']) expect(isPublicAddress(a), a).toBe(false);
  });
});
