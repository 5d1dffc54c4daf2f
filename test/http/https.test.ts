// HTTPS for the LAN: the certificate Deskbase makes and keeps (server/http/certificate.ts, read back with
// node:crypto and OpenSSL's own verification through a real TLS handshake), the server over HTTPS
// (startServer's `https`), the CLI's flags, and the setup link printed for the LAN.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseArgs } from '../../server/cli.js';
import { ensureCertificate, LEAF_DAYS } from '../../server/http/certificate.js';
import { lanAddresses } from '../../server/http/listener.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { osFreePort } from '../main/net-helpers.js';

let dir: string;
const running: RunningServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-https-'));
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
  await rm(dir, { recursive: true, force: true });
});

const leafOf = (chain: string) => new X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25));

/** GET over HTTPS trusting only `ca`: Node's TLS verifies the chain and the name, as a browser would. */
function get(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the certificate Deskbase makes', () => {
  const hosts = ['localhost', '127.0.0.1', '::1', 'mypc.local', '192.168.1.20'];

  it('is a server certificate for every name and address, signed by a local CA, valid about a year', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    const files = await ensureCertificate(dir, hosts, now);
    const leaf = leafOf(files.cert);
    const ca = new X509Certificate(files.ca);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:mypc.local, IP Address:192.168.1.20');
    expect(leaf.checkIP('192.168.1.20')).toBe('192.168.1.20');
    expect(leaf.checkHost('mypc.local')).toBe('mypc.local');
    expect(leaf.checkIP('192.168.1.21')).toBeUndefined();
    expect((new Date(leaf.validTo).getTime() - now.getTime()) / 86_400_000).toBeCloseTo(LEAF_DAYS, 0);
    expect(leaf.keyUsage ?? []).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(files.caFingerprint).toBe(ca.fingerprint256);
    expect(files.caPath).toBe(join(dir, 'tls', 'ca.pem'));
    // the private keys are the owner's only
    for (const key of ['ca-key.pem', 'key.pem']) expect((await stat(join(dir, 'tls', key))).mode & 0o077).toBe(0);
  });

  it('is kept across starts, and re-issued under the same CA when an address is new or it nears its end', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    const first = await ensureCertificate(dir, hosts, now);
    const again = await ensureCertificate(dir, hosts, new Date('2027-06-01T00:00:00Z'));
    expect(again.cert).toBe(first.cert);
    const moved = await ensureCertificate(dir, [...hosts, '10.0.0.7'], now);
    expect(moved.ca).toBe(first.ca); // devices that trust the CA keep trusting
    expect(moved.cert).not.toBe(first.cert);
    expect(leafOf(moved.cert).checkIP('10.0.0.7')).toBe('10.0.0.7');
    const late = await ensureCertificate(dir, [...hosts, '10.0.0.7'], new Date(now.getTime() + (LEAF_DAYS - 10) * 86_400_000));
    expect(late.ca).toBe(first.ca);
    expect(late.cert).not.toBe(moved.cert);
  });

  it('leaves out machine names a certificate cannot carry', async () => {
    const files = await ensureCertificate(dir, ['localhost', 'Büro-PC', 'my pc', 'mypc.local', '127.0.0.1']);
    expect(leafOf(files.cert).subjectAltName).toBe('DNS:localhost, DNS:mypc.local, IP Address:127.0.0.1');
  });

  it('a damaged certificate file is replaced, not trusted', async () => {
    const first = await ensureCertificate(dir, hosts);
    await writeFile(join(dir, 'tls', 'cert.pem'), 'not a certificate');
    const next = await ensureCertificate(dir, hosts);
    expect(next.ca).toBe(first.ca);
    expect(leafOf(next.cert).verify(new X509Certificate(next.ca).publicKey)).toBe(true);
  });
});

describe('the server over HTTPS', () => {
  it('serves the API with its own certificate, which a client trusting the CA accepts; plain HTTP gets no answer', async () => {
    const server = await startServer({ dir, host: '127.0.0.1', port: await osFreePort(), strictPort: true, https: true, log: () => undefined });
    running.push(server);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await server.setupUrl())).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/_\/#\/setup\?token=/);
    expect(server.tls?.caPath).toBe(join(dir, 'tls', 'ca.pem'));
    const ca = await readFile(server.tls!.caPath, 'utf8');
    const health = await get(`${server.url}/api/health`, ca);
    expect(health.status).toBe(200);
    // a client that does not trust the CA refuses the connection
    await expect(get(`${server.url}/api/health`, '')).rejects.toThrow(/self[- ]signed|unable to get local issuer|certificate/i);
    await expect(fetch(`${server.url.replace('https:', 'http:')}/api/health`)).rejects.toThrow();
  });

  it('sets the Secure session cookie and accepts it back with the https Origin (CSRF check on the scheme)', async () => {
    const server = await startServer({ dir, host: '127.0.0.1', port: await osFreePort(), strictPort: true, https: true, log: () => undefined });
    running.push(server);
    const ca = await readFile(server.tls!.caPath, 'utf8');
    const origin = server.url;
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = request(`${origin}${path}`, { method: 'POST', ca, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    expect((await post('/api/setup', { token: (await server.setupToken()), email: 'ada@example.com', password: 'correct horse battery' })).status).toBe(200);
    const signIn = await post('/api/collections/_superusers/auth-with-password', { identity: 'ada@example.com', password: 'correct horse battery', cookie: true }, { origin });
    expect(signIn.status).toBe(200);
    const cookie = String((signIn.headers['set-cookie'] as string[])[0]);
    expect(cookie).toMatch(/; Secure$/);
    const session = await get(`${origin}/api/session`, ca, { cookie: cookie.split(';')[0] });
    expect(JSON.parse(session.body)).toMatchObject({ record: { email: 'ada@example.com' } });
    // an unsafe request on the cookie needs this https origin, not its http twin
    const refused = await post('/api/collections/_superusers/auth-refresh', {}, { cookie: cookie.split(';')[0], origin: origin.replace('https:', 'http:') });
    expect(refused.status).toBe(403);
    const refreshed = await post('/api/collections/_superusers/auth-refresh', {}, { cookie: cookie.split(';')[0], origin });
    expect(refreshed.status).toBe(200);
  });

  it('uses a certificate the user gives', async () => {
    const own = await ensureCertificate(join(dir, 'elsewhere'), ['127.0.0.1']);
    const server = await startServer({ dir, host: '127.0.0.1', port: await osFreePort(), strictPort: true, https: { cert: own.cert, key: own.key }, log: () => undefined });
    running.push(server);
    expect(server.tls).toBeNull();
    expect((await get(`${server.url}/api/health`, own.ca)).status).toBe(200);
  });

  it('HTTPS with a certificate of its own needs a data folder', async () => {
    await expect(startServer({ dir: null, port: await osFreePort(), https: true, log: () => undefined })).rejects.toThrow(/needs a data folder/);
  });
});

describe.skipIf(lanAddresses().length === 0)('bound to every interface', () => {
  it('prints a setup link another device can open, and LAN addresses with the https scheme', async () => {
    const lines: string[] = [];
    const server = await startServer({ dir, host: '0.0.0.0', port: await osFreePort(), strictPort: true, https: true, log: (l) => lines.push(l) });
    running.push(server);
    const token = (await server.setupToken())!;
    const [address] = lanAddresses();
    expect(lines).toContain(`  or from another device: https://${address}:${server.port}/_/#/setup?token=${token}`);
    expect(await server.lanUrls()).toContain(`https://${address}:${server.port}`);
    // the certificate names the LAN address, so a device that trusts the CA opens it without a warning
    const ca = await readFile(server.tls!.caPath, 'utf8');
    expect((await get(`https://${address}:${server.port}/api/health`, ca)).status).toBe(200);
  });

  it('over plain HTTP too, the printed link names a LAN address', async () => {
    const lines: string[] = [];
    const server = await startServer({ dir, host: '0.0.0.0', port: await osFreePort(), strictPort: true, log: (l) => lines.push(l) });
    running.push(server);
    expect(lines.some((l) => l.startsWith(`  or from another device: http://${lanAddresses()[0]}:${server.port}/_/#/setup?token=`))).toBe(true);
  });
});

describe('CLI flags', () => {
  it.each([
    { argv: ['--https'], https: true },
    { argv: ['--https', '--https-cert', 'c.pem', '--https-key', 'k.pem'], https: { certFile: expect.stringMatching(/c\.pem$/), keyFile: expect.stringMatching(/k\.pem$/) } },
    { argv: [], https: false },
  ])('$argv → https=$https', ({ argv, https }) => {
    expect(parseArgs(argv)).toMatchObject({ https });
  });

  it.each([
    { argv: ['--https-cert', 'c.pem', '--https-key', 'k.pem'], error: /need --https/ },
    { argv: ['--https', '--https-cert', 'c.pem'], error: /go together/ },
    { argv: ['--https=yes'], error: /takes no value/ },
    { argv: ['--https', '--https-key'], error: /needs a PEM file/ },
  ])('$argv is refused: $error', ({ argv, error }) => {
    expect(parseArgs(argv)).toEqual({ error: expect.stringMatching(error) });
  });
});
