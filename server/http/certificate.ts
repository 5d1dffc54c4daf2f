// HTTPS for the LAN without a certificate authority: Deskbase makes its own, kept in the data folder's
// tls/ folder. A small local CA (ca.pem, made once, valid 10 years) is what a phone or another computer
// is told to trust, once; the server's certificate (cert.pem) is signed by it for this machine's names
// and addresses, and re-issued (same CA, so nothing to trust again) when an address changes or it nears
// its end. Certificates are X.509 v3 with ECDSA P-256 keys, written here as DER over node:crypto
// (Node has no certificate builder); `crypto.X509Certificate` reads them back in the tests.
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface TlsFiles {
  /** PEM of the server's certificate followed by the CA's (the chain a client gets). */
  cert: string;
  key: string;
  /** PEM of the CA: the file to install on a phone or another computer. */
  ca: string;
  caPath: string;
  /** SHA-256 fingerprint of the CA, "AB:CD:...", to compare on the device when trusting it. */
  caFingerprint: string;
}

const DAY_MS = 86_400_000;
/** Apple accepts at most 825 days for certificates under a user-installed CA; a year keeps clear of it. */
export const LEAF_DAYS = 397;
export const CA_DAYS = 3650;
/** Re-issued this long before it ends. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

// --- DER ---------------------------------------------------------------------------------------------

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const octets = (b: Buffer) => der(0x04, b);
const bits = (b: Buffer, unused = 0) => der(0x03, Buffer.concat([Buffer.from([unused]), b]));
const bool = (v: boolean) => der(0x01, Buffer.from([v ? 0xff : 0x00]));
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));
function int(value: Buffer | number): Buffer {
  let b = typeof value === 'number' ? Buffer.from([value]) : value;
  while (b.length > 1 && b[0] === 0 && (b[1] & 0x80) === 0) b = b.subarray(1);
  if (b[0] & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return der(0x02, b);
}
function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  // UTCTime up to 2049, GeneralizedTime from 2050 (RFC 5280)
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}
const explicit = (n: number, content: Buffer) => der(0xa0 + n, content);

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string) => seq(set(seq(oid('2.5.4.10'), utf8('Deskbase'))), set(seq(oid('2.5.4.3'), utf8(cn))));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function keyId(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function altName(host: string): Buffer {
  if (isIP(host) === 4) return der(0x87, Buffer.from(host.split('.').map(Number)));
  if (isIP(host) === 6) {
    const [head, tail = ''] = host.split('::');
    const groups = (s: string) => (s ? s.split(':') : []);
    const h = groups(head);
    const t = host.includes('::') ? groups(tail) : [];
    const all = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    return der(0x87, Buffer.from(all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])));
  }
  return der(0x82, Buffer.from(host, 'ascii'));
}

interface Issued {
  pem: string;
  key: KeyObject;
}

function issue(options: {
  subject: string;
  issuer: { name: string; key: KeyObject; spki: Buffer } | null;
  days: number;
  now: Date;
  ca: boolean;
  hosts?: string[];
}): Issued {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const signer = options.issuer ?? { name: options.subject, key: privateKey, spki };
  const notBefore = new Date(options.now.getTime() - 60_000); // a clock slightly behind still accepts it
  const notAfter = new Date(options.now.getTime() + options.days * DAY_MS);
  const extensions = options.ca
    ? [
        extension('2.5.29.19', true, seq(bool(true), int(0))), // basicConstraints: CA, no CA below it
        extension('2.5.29.15', true, bits(Buffer.from([0x06]), 1)), // keyUsage: keyCertSign, cRLSign
        extension('2.5.29.14', false, octets(keyId(spki))),
      ]
    : [
        extension('2.5.29.19', true, seq()), // not a CA
        extension('2.5.29.15', true, bits(Buffer.from([0x80]), 7)), // keyUsage: digitalSignature
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
        extension('2.5.29.17', false, seq(...(options.hosts ?? []).map(altName))),
        extension('2.5.29.14', false, octets(keyId(spki))),
        extension('2.5.29.35', false, seq(der(0x80, keyId(signer.spki)))),
      ];
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = seq(
    explicit(0, int(2)),
    int(serial),
    ECDSA_SHA256,
    name(signer.name),
    seq(time(notBefore), time(notAfter)),
    name(options.subject),
    spki,
    explicit(3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, signer.key);
  const cert = seq(tbs, ECDSA_SHA256, bits(signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  return { pem, key: privateKey };
}

// --- kept in the data folder ---------------------------------------------------------------------------

const keyPem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

async function readIfAny(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function writeAtomic(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}

/** The CA's SHA-256 fingerprint as devices show it. */
export function fingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** Whether `cert` names every host in `hosts` and has more than RENEW_BEFORE_MS left at `now`. */
function stillGood(certPem: string, caPem: string, hosts: string[], now: Date): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caPem);
    if (!cert.verify(ca.publicKey)) return false;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return false;
    return hosts.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
  } catch {
    return false;
  }
}

/**
 * The certificate for `hosts` (this machine's names and LAN addresses), from `<dir>/tls/`: made the
 * first time, kept afterwards, re-issued under the same CA when a host is new or it nears its end.
 */
export async function ensureCertificate(dataDir: string, hosts: string[], now = new Date()): Promise<TlsFiles> {
  const dir = join(dataDir, 'tls');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const caPath = join(dir, 'ca.pem');
  const paths = { caKey: join(dir, 'ca-key.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  let caPem = await readIfAny(caPath);
  let caKeyPem = await readIfAny(paths.caKey);
  if (!caPem || !caKeyPem || new Date(new X509Certificate(caPem).validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) {
    const ca = issue({ subject: 'Deskbase local CA', issuer: null, days: CA_DAYS, now, ca: true });
    caPem = ca.pem;
    caKeyPem = keyPem(ca.key);
    await writeAtomic(paths.caKey, caKeyPem, 0o600);
    await writeAtomic(caPath, caPem, 0o644);
  }
  // a certificate names hosts in ASCII (IA5String): a machine name with other characters is left out
  const wanted = [...new Set(hosts)].filter((h) => isIP(h) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/.test(h));
  let certPem = await readIfAny(paths.cert);
  let leafKeyPem = await readIfAny(paths.key);
  if (!certPem || !leafKeyPem || !stillGood(certPem, caPem, wanted, now)) {
    const caKey = createPrivateKey(caKeyPem);
    const caSpki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
    const leaf = issue({
      subject: wanted.find((h) => !isIP(h)) ?? 'Deskbase', issuer: { name: 'Deskbase local CA', key: caKey, spki: caSpki },
      days: LEAF_DAYS, now, ca: false, hosts: wanted,
    });
    certPem = leaf.pem;
    leafKeyPem = keyPem(leaf.key);
    await writeAtomic(paths.key, leafKeyPem, 0o600);
    await writeAtomic(paths.cert, certPem, 0o644);
  }
  return { cert: certPem + caPem, key: leafKeyPem, ca: caPem, caPath, caFingerprint: fingerprint(caPem) };
}
