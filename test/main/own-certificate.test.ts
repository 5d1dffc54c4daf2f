// The desktop window over HTTPS accepts the server's own certificate on the server's origin only
// (main/own-certificate.ts), with certificates Deskbase really makes (server/http/certificate.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOwnCertificate } from '../../main/own-certificate.js';
import { ensureCertificate, type TlsFiles } from '../../server/http/certificate.js';

let dir: string;
let ours: TlsFiles;
let theirs: TlsFiles;
const ORIGIN = 'https://127.0.0.1:8090';
const leaf = (chain: string) => chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deskbase-own-cert-'));
  ours = await ensureCertificate(join(dir, 'a'), ['127.0.0.1']);
  theirs = await ensureCertificate(join(dir, 'b'), ['127.0.0.1']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('isOwnCertificate', () => {
  it('accepts our certificate on our origin (Electron hands the PEM with its own line breaks)', () => {
    expect(isOwnCertificate(`${ORIGIN}/_/`, leaf(ours.cert), ORIGIN, ours.cert)).toBe(true);
    expect(isOwnCertificate(`${ORIGIN}/api/health`, leaf(ours.cert).replace(/\n/g, '\r\n'), ORIGIN, ours.cert)).toBe(true);
  });

  it.each([
    { name: 'another certificate on our origin', url: `${ORIGIN}/_/`, presented: () => leaf(theirs.cert) },
    { name: 'our CA instead of our certificate', url: `${ORIGIN}/_/`, presented: () => ours.ca },
    { name: 'our certificate on another origin', url: 'https://evil.example/', presented: () => leaf(ours.cert) },
    { name: 'our certificate on another port', url: 'https://127.0.0.1:8091/', presented: () => leaf(ours.cert) },
    { name: 'an empty certificate', url: `${ORIGIN}/_/`, presented: () => '' },
    { name: 'no URL', url: 'not a url', presented: () => leaf(ours.cert) },
  ])('refuses $name', ({ url, presented }) => {
    expect(isOwnCertificate(url, presented(), ORIGIN, ours.cert)).toBe(false);
  });

  it('refuses everything when the server has no certificate of its own', () => {
    expect(isOwnCertificate(`${ORIGIN}/_/`, leaf(ours.cert), ORIGIN, null)).toBe(false);
  });
});
