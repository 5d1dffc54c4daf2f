// scrypt from node:crypto (docs/architecture.md, "Decisions"): N=16384, r=8, p=1, 64-byte key, 16-byte salt. The parameters
// are stored with the hash so they can be raised later. Hashing runs on worker threads (scrypt-pool.ts),
// so the event loop stays free for other requests.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScryptPool } from './scrypt-pool.js';

const N = 16384, R = 8, P = 1, KEYLEN = 64;

/** One pool per process, as libuv's (see scrypt-pool.ts): it keeps no state between hashes. */
const pool = new ScryptPool();

function derive(password: string, salt: Buffer, n: number, r: number, p: number, keylen: number, client: string): Promise<Buffer> {
  // maxmem: node's default (32 MiB) is too small from N = 32768 on
  return pool.derive(password, salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, client);
}

// `client` (RequestInfo.client) is who the hash is charged to: past the pool's bounds a 429, before any work.

export async function hashPassword(password: string, client = ''): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P, KEYLEN, client);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** PocketBase's hashes (bcrypt, `$2a$10$` + 53 characters), which records moved from PocketBase keep until their next sign-in. */
const BCRYPT_HASH = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;

/** bcryptjs for the worker: beside a bundle (scripts/build.mjs copies it there), else from node_modules. */
function bcryptModule(): string {
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'bcryptjs.cjs');
  return existsSync(beside) ? beside : createRequire(import.meta.url).resolve('bcryptjs');
}

/** A hash of another scheme (PocketBase's bcrypt) that the next successful sign-in replaces with scrypt. */
export function needsRehash(stored: string): boolean {
  return BCRYPT_HASH.test(stored);
}

export async function verifyPassword(password: string, stored: string, client = ''): Promise<boolean> {
  if (BCRYPT_HASH.test(stored)) return pool.bcryptCompare(password, stored, bcryptModule(), client);
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, DUMMY_SALT, N, R, P, KEYLEN, client); // same cost on malformed hashes
    return false;
  }
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length, client);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const DUMMY_SALT = Buffer.alloc(16, 7);
/** Unknown identities still cost one hash, so timing does not reveal which accounts exist. */
export async function burnPasswordCheck(password: string, client = ''): Promise<void> {
  await derive(password, DUMMY_SALT, N, R, P, KEYLEN, client);
}
