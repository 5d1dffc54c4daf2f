// scrypt from node:crypto (docs/architecture.md, "Decisions"): N=16384, r=8, p=1, 64-byte key, 16-byte salt. The parameters
// are stored with the hash so they can be raised later. Hashing runs on worker threads (scrypt-pool.ts),
// so the event loop stays free for other requests. `Passwords` holds the server's pool (createCore
// makes it, core/index.ts) and is handed to sign-in and the writes; the hash format's checks are pure.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashJobStopped, ScryptPool } from './scrypt-pool.js';

const R = 8, P = 1, KEYLEN = 64;

/** scrypt's work factor (N) for new hashes: 2^14, about 16 MiB and 60 ms of one core a hash. */
export const SCRYPT_N = 16384;

/**
 * Why `n` cannot be a server's work factor for new hashes (CoreOptions.scryptN), or null: a power of two
 * from 2^10 (a sixteenth of the default's work, for test suites that hash thousands of passwords, as
 * Laravel's BCRYPT_ROUNDS=4 in tests) to HASH_LIMITS' 2^17. Hashes already stored keep their own N.
 */
export function scryptNProblem(n: number): string | null {
  return Number.isInteger(n) && n >= 1024 && n <= HASH_LIMITS.scrypt.maxN && (n & (n - 1)) === 0
    ? null
    : `scryptN must be a power of two from 1024 to ${HASH_LIMITS.scrypt.maxN}, not ${String(n)}`;
}


/** PocketBase's hashes (bcrypt, `$2a$10$` + 53 characters), which records moved from PocketBase keep until their next sign-in. */
const BCRYPT_HASH = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;

/**
 * What a stored hash may ask of a password worker. A hash names its own cost, and a sign-in with any
 * identity runs it: a `$2b$31$` bcrypt hash or scrypt parameters with a huge `p` would hold a worker
 * for days (or fail it with a 500). Hashes outside these bounds are refused when stored (the
 * PocketBase import) and never run when checked (the sign-in fails as a wrong password does).
 * bcrypt: PocketBase's default cost is 10 (bcryptjs: about 70 ms), 13 is eight times that. scrypt:
 * Deskbase's own N=16384, r=8, p=1 may be raised up to 128 MiB of memory (128·N·r) and eight
 * times its work (N·r·p).
 */
export const HASH_LIMITS = {
  bcryptCost: { min: 4, max: 13 },
  scrypt: { maxN: 2 ** 17, maxR: 16, maxP: 4, maxMemory: 128 * 1024 ** 2, maxWork: 8 * SCRYPT_N * R * P, saltBytes: { min: 8, max: 64 }, keyBytes: { min: 16, max: 128 } },
} as const;

interface ScryptHash {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

/** A stored scrypt hash within HASH_LIMITS, or null. */
function scryptHash(stored: string): ScryptHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [n, r, p] = parts.slice(1, 4).map((x) => (/^[1-9]\d{0,9}$/.test(x) ? Number(x) : NaN));
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  const L = HASH_LIMITS.scrypt;
  const ok = Number.isInteger(n) && Number.isInteger(r) && Number.isInteger(p) && n >= 2 && (n & (n - 1)) === 0 && n <= L.maxN && r <= L.maxR && p <= L.maxP
    && 128 * n * r <= L.maxMemory && n * r * p <= L.maxWork
    && salt.length >= L.saltBytes.min && salt.length <= L.saltBytes.max && key.length >= L.keyBytes.min && key.length <= L.keyBytes.max;
  return ok ? { n, r, p, salt, key } : null;
}

function bcryptCost(stored: string): number | null {
  const m = BCRYPT_HASH.exec(stored);
  return m ? Number(m[1]) : null;
}

const boundedCost = (cost: number) => cost >= HASH_LIMITS.bcryptCost.min && cost <= HASH_LIMITS.bcryptCost.max;

/**
 * Why a hash cannot be stored (null when it can): not a hash Deskbase checks, or its cost is past
 * HASH_LIMITS. The one check for hashes that arrive already made (the PocketBase import).
 */
export function storedHashProblem(stored: string): string | null {
  const cost = bcryptCost(stored);
  if (cost !== null) return boundedCost(cost) ? null : `bcrypt cost ${cost} is outside ${HASH_LIMITS.bcryptCost.min}-${HASH_LIMITS.bcryptCost.max}`;
  if (stored.startsWith('scrypt$')) return scryptHash(stored) === null ? 'scrypt parameters outside the limits (N up to 2^17, r up to 16, p up to 4, 128 MiB)' : null;
  return 'not a bcrypt or scrypt password hash';
}

/** bcryptjs for the worker: beside a bundle (scripts/build.mjs copies it there), else from node_modules. */
function bcryptModule(): string {
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'bcryptjs.cjs');
  return existsSync(beside) ? beside : createRequire(import.meta.url).resolve('bcryptjs');
}

/** A hash of another scheme (PocketBase's bcrypt) that the next successful sign-in replaces with scrypt. */
export function needsRehash(stored: string): boolean {
  return BCRYPT_HASH.test(stored);
}

const DUMMY_SALT = Buffer.alloc(16, 7);

/**
 * Hashing and checking passwords on the server's pool. `client` (RequestInfo.client) is who a hash is
 * charged to: past the pool's bounds a 429, before any work.
 */
export class Passwords {
  /** `n`: the work factor of new hashes, of unknown identities' and of malformed hashes' checks (SCRYPT_N unless a server is given another: scryptNProblem). */
  constructor(private readonly pool: ScryptPool = new ScryptPool(), private readonly n = SCRYPT_N) {
    const problem = scryptNProblem(n);
    if (problem) throw new Error(problem);
  }

  private derive(password: string, salt: Buffer, n: number, r: number, p: number, keylen: number, client: string): Promise<Buffer> {
    // maxmem: node's default (32 MiB) is too small from N = 32768 on
    return this.pool.derive(password, salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, client);
  }

  async hash(password: string, client = ''): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.derive(password, salt, this.n, R, P, KEYLEN, client);
    return `scrypt$${this.n}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /**
   * Checks a password against a stored hash. A hash past HASH_LIMITS, malformed, or whose check the pool
   * stopped (over its time limit) is a wrong password: one ordinary hash is spent, so the answer and its
   * time are those of any failed sign-in. The pool's 429 still reaches the caller.
   */
  async verify(password: string, stored: string, client = ''): Promise<boolean> {
    try {
      const cost = bcryptCost(stored);
      if (cost !== null && boundedCost(cost)) return await this.pool.bcryptCompare(password, stored, bcryptModule(), client);
      const hash = cost === null ? scryptHash(stored) : null;
      if (hash === null) {
        await this.derive(password, DUMMY_SALT, this.n, R, P, KEYLEN, client); // same cost on malformed or unbounded hashes
        return false;
      }
      const actual = await this.derive(password, hash.salt, hash.n, hash.r, hash.p, hash.key.length, client);
      return actual.length === hash.key.length && timingSafeEqual(actual, hash.key);
    } catch (err) {
      if (err instanceof HashJobStopped) return false;
      throw err;
    }
  }

  /** Unknown identities still cost one hash, so timing does not reveal which accounts exist. */
  async burn(password: string, client = ''): Promise<void> {
    await this.derive(password, DUMMY_SALT, this.n, R, P, KEYLEN, client);
  }
}
