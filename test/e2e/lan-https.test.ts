// A browser on another machine of the LAN keeps a cookie session only over HTTPS. The other machine is a
// second network namespace joined to this one by a veth pair: Chromium runs inside it and reaches the
// server at this machine's address on that link, a real non-loopback client. Over plain HTTP the
// spec's Secure cookie is dropped (Chromium allows Secure cookies from http only on localhost); over the
// HTTPS Deskbase serves with its own certificate (trusted here by its key, as a device that installed the
// CA would), the same sign-in keeps its session. Needs root for `ip netns`; skipped elsewhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../../server/index.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, shot } from './helpers.js';

const id = String(process.pid % 10_000);
const NS = `dbns${id}`;
const HOST_IF = `dbh${id}`;
const NS_IF = `dbn${id}`;
const octet = 10 + (process.pid % 200);
const HOST_ADDR = `10.213.${octet}.1`;
const NS_ADDR = `10.213.${octet}.2`;

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

function canMakeNamespaces(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('ip', ['netns', 'add', `${NS}probe`]);
  if (probe.status !== 0) return false;
  spawnSync('ip', ['netns', 'del', `${NS}probe`]);
  return true;
}

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
let work: string;
let https: RunningServer;
let http: RunningServer;
let browser: Browser;

/** POST over HTTPS from this machine, trusting the server's CA. */
function post(url: string, ca: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const enabled = canMakeNamespaces();

describe.skipIf(!enabled)('a LAN browser (another network namespace)', () => {
  beforeAll(async () => {
    // the link to the "other machine"
    ip('netns', 'add', NS);
    ip('link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF);
    ip('link', 'set', NS_IF, 'netns', NS);
    ip('addr', 'add', `${HOST_ADDR}/24`, 'dev', HOST_IF);
    ip('link', 'set', HOST_IF, 'up');
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', `${NS_ADDR}/24`, 'dev', NS_IF);
    ip('netns', 'exec', NS, 'ip', 'link', 'set', NS_IF, 'up');
    ip('netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up');

    work = await mkdtemp(join(tmpdir(), 'deskbase-lan-https-'));
    // both servers on every interface, as LAN sharing binds; the certificate names HOST_ADDR (the link is up)
    https = await startServer({ dir: join(work, 'https'), host: '0.0.0.0', port: 0, https: true, uiDir: null, log: () => undefined });
    http = await startServer({ dir: join(work, 'http'), host: '0.0.0.0', port: 0, uiDir: null, log: () => undefined });
    const ca = await readFile(https.tls!.caPath, 'utf8');
    expect(await post(`${https.url}/api/setup`, ca, { token: (await https.setupToken()), email: EMAIL, password: PASSWORD })).toBe(200);
    const plain = await fetch(`${http.url}/api/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: (await http.setupToken()), email: EMAIL, password: PASSWORD }),
    });
    expect(plain.status).toBe(200);

    // Chromium inside the namespace; it trusts the server's key as a device that installed the CA does
    const leaf = new X509Certificate((await readFile(join(work, 'https', 'tls', 'cert.pem'), 'utf8')));
    const spki = createHash('sha256').update(leaf.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
    const wrapper = join(work, 'chromium-in-namespace.sh');
    await writeFile(wrapper, `#!/bin/sh\nexec ip netns exec ${NS} ${CHROMIUM_PATH} "$@"\n`);
    await chmod(wrapper, 0o755);
    browser = await chromium.launch({ executablePath: wrapper, args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await https?.close();
    await http?.close();
    spawnSync('ip', ['link', 'del', HOST_IF]);
    spawnSync('ip', ['netns', 'del', NS]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Opens the server's page at its LAN address, signs in with a cookie session, and asks who it is. */
  async function signInFromLan(base: string) {
    const page = await browser.newPage();
    await page.goto(`${base}/_/`);
    const result = await page.evaluate(
      async ({ email, password }) => {
        const signIn = await fetch('/api/collections/_superusers/auth-with-password', {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: email, password, cookie: true }),
        });
        const session = await (await fetch('/api/session')).json();
        return { signIn: signIn.status, secure: window.isSecureContext, email: (session as { record?: { email?: string } } | null)?.record?.email ?? null };
      },
      { email: EMAIL, password: PASSWORD },
    );
    return { page, result };
  }

  it('is really another machine: it reaches this one only through the link', () => {
    const route = execFileSync('ip', ['netns', 'exec', NS, 'ip', '-4', 'route'], { encoding: 'utf8' });
    expect(route).toContain(`10.213.${octet}.0/24 dev ${NS_IF}`);
    expect(route).not.toContain('default');
  });

  it('over plain HTTP at the LAN address, the session cookie is dropped: signed in, yet no session', async () => {
    const base = `http://${HOST_ADDR}:${http.port}`;
    const { page, result } = await signInFromLan(base);
    expect(result).toEqual({ signIn: 200, secure: false, email: null });
    await page.close();
  });

  it('over HTTPS at the LAN address, the cookie session works', async () => {
    expect(await https.lanUrls()).toContain(`https://${HOST_ADDR}:${https.port}`);
    const base = `https://${HOST_ADDR}:${https.port}`;
    const { page, result } = await signInFromLan(base);
    expect(result).toEqual({ signIn: 200, secure: true, email: EMAIL });
    // and it lasts: a new page of the same browser is still signed in
    const again = await page.evaluate(async () => ((await (await fetch('/api/session')).json()) as { record?: { email?: string } } | null)?.record?.email ?? null);
    expect(again).toBe(EMAIL);
    await shot(page, 'lan-https-signed-in');
    await page.close();
  });
});
