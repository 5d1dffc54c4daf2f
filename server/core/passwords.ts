// scrypt from node:crypto (design.md): N=16384, r=8, p=1, 64-byte key, 16-byte salt. The parameters
// are stored with the hash so they can be raised later. Hashing runs on libuv's thread pool, so the
// event loop stays free for other requests.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 16384, R = 8, P = 1, KEYLEN = 64;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: node's default (32 MiB) is too small from N = 32768 on
    scrypt(password, salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P, KEYLEN);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, DUMMY_SALT, N, R, P, KEYLEN); // same cost on malformed hashes
    return false;
  }
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const DUMMY_SALT = Buffer.alloc(16, 7);
/** Unknown identities still cost one hash, so timing does not reveal which accounts exist. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await derive(password, DUMMY_SALT, N, R, P, KEYLEN);
}
