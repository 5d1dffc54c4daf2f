// Stored hashes name their own cost, and any guest's sign-in runs it: a `$2b$31$` bcrypt hash or
// scrypt parameters with a huge `p` must not pin the password workers (issue 21, item 9). Hashes past
// HASH_LIMITS are never run (the ordinary failed sign-in), and a job past the pool's time limit is
// stopped and its worker replaced.
import bcrypt from 'bcryptjs';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Passwords, scryptNProblem, storedHashProblem } from '../../server/core/passwords.js';
import { startServer } from '../../server/index.js';
import { HashJobStopped, ScryptPool } from '../../server/core/scrypt-pool.js';
import { eachSuperuser, harness, signUpUser, type Harness } from '../support/harness.js';
import { seedOf } from '../support/test-store.js';

const FAILED = { status: 400, message: 'Failed to authenticate.', data: {} };

/**
 * The CPU time this process (its main thread, the password workers, every other thread) has used since
 * `from` (process.cpuUsage), in ms: what the work costs, whatever else the machine runs. A busy machine
 * stretches the wall-clock time of a niced password worker about seventy-fold (nice 19 against a busy
 * process per core), not its CPU time.
 */
const cpuMsSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

describe('stored hashes with absurd parameters', () => {
  let h: Harness;
  eachSuperuser((fresh) => (h = fresh));

  const plant = (email: string, hash: string) => h.core.store.write((tx) => tx.run('UPDATE users SET password = ? WHERE email = ?', [hash, email]));
  const signIn = (identity: string, password: string) => h.req('POST', '/api/collections/users/auth-with-password', { body: { identity, password } });

  it('a $2b$31$ or $2b$20$ bcrypt hash or scrypt with p = 2^30 is a failed sign-in, and other sign-ins are not held up', async () => {
    for (const who of ['a', 'b', 'c', 'd']) await signUpUser(h, `${who}@example.com`, 'password123');
    const bcrypt31 = bcrypt.hashSync('password123', 4).replace(/^\$2([aby])\$04\$/, '$$2$1$$31$$');
    expect(bcrypt31).toMatch(/^\$2[aby]\$31\$/);
    // cost 31 overflows bcryptjs's count of rounds (1 << 31 < 0: it runs none); cost 20 runs about 70 s
    const bcrypt20 = bcrypt.hashSync('password123', 4).replace(/^\$2([aby])\$04\$/, '$$2$1$$20$$');
    await plant('a@example.com', bcrypt31);
    await plant('b@example.com', bcrypt20);
    const salt = Buffer.alloc(16, 1).toString('base64');
    const key = Buffer.alloc(64, 2).toString('base64');
    await plant('c@example.com', `scrypt$16384$8$${2 ** 30}$${salt}$${key}`);
    const cpu = process.cpuUsage();
    // two hostile sign-ins would once have held both workers for days; the third is an ordinary user
    const [a, b, c, d] = await Promise.all([
      signIn('a@example.com', 'password123'), signIn('b@example.com', 'password123'), signIn('c@example.com', 'password123'), signIn('d@example.com', 'password123'),
    ]);
    expect(a.body).toEqual(FAILED);
    expect(b.body).toEqual(FAILED);
    expect(c.body).toEqual(FAILED); // was a 500 (scrypt refused the parameters on the worker)
    expect(d.status, d.text).toBe(200);
    // none of the hostile hashes ran: the pool would stop a runaway job only after 10 s of its CPU (the
    // ordinary sign-in's scrypt and the requests cost tens of ms)
    expect(cpuMsSince(cpu)).toBeLessThan(5_000);
  }, 60_000);

  it('storedHashProblem names what is out of bounds and passes ordinary hashes', () => {
    expect(storedHashProblem(bcrypt.hashSync('x', 10))).toBeNull();
    expect(storedHashProblem(bcrypt.hashSync('x', 4).replace('$04$', '$31$'))).toMatch(/bcrypt cost 31 is outside 4-13/);
    const salt = Buffer.alloc(16, 1).toString('base64');
    const key = Buffer.alloc(64, 2).toString('base64');
    expect(storedHashProblem(`scrypt$16384$8$1$${salt}$${key}`)).toBeNull();
    expect(storedHashProblem(`scrypt$16384$8$1073741824$${salt}$${key}`)).toMatch(/scrypt parameters/);
    expect(storedHashProblem(`scrypt$1048576$8$1$${salt}$${key}`)).toMatch(/scrypt parameters/);
    expect(storedHashProblem(`scrypt$16384$8$1$${salt}$${Buffer.alloc(100_000).toString('base64')}`)).toMatch(/scrypt parameters/);
    expect(storedHashProblem('plain text')).toMatch(/not a bcrypt or scrypt/);
  });
});

describe('the password pool stops a job past its time limit', () => {
  it('terminates the worker, rejects with HashJobStopped, and the next job runs on a new worker', async () => {
    const pool = new ScryptPool({ size: 1, jobMs: 100 });
    // cost 16: about 4.5 s of bcryptjs (the hash need not match: the compare runs its rounds all the same)
    const slow = bcrypt.hashSync('pw', 4).replace('$04$', '$16$');
    const cpu = process.cpuUsage();
    await expect(pool.bcryptCompare('pw', slow, require.resolve('bcryptjs'))).rejects.toBeInstanceOf(HashJobStopped);
    // stopped at its 100 ms of CPU (and the worker's start), not run for its 4.5 s
    expect(cpuMsSince(cpu)).toBeLessThan(2_000);
    const key = await pool.derive('pw', Buffer.alloc(16), 64, { N: 1024, r: 8, p: 1, maxmem: 32 * 1024 * 1024 });
    expect(key.length).toBe(64);
    expect(await pool.bcryptCompare('pw', bcrypt.hashSync('pw', 4), require.resolve('bcryptjs'))).toBe(true);
  }, 60_000);
});

describe('each server hashes on its own pool (CoreOptions.hashPool), not a process-wide one', () => {
  it("a server whose pool is full answers 429; another server in the same process signs in as usual", async () => {
    const pool = new ScryptPool({ size: 1, maxWaiting: 1, jobMs: 2_000 });
    const [full, other] = await Promise.all([harness({ hashPool: pool }), harness()]);
    try {
      await Promise.all([full.superuser(), other.superuser()]);
      // the pool's one worker busy and its one waiting place taken, each for 1.5 s of wall-clock time
      // that uses no CPU (test/fixtures/sleeping-bcrypt.cjs), however busy the machine is
      const sleeping = require.resolve('../fixtures/sleeping-bcrypt.cjs');
      const held = [0, 1].map(() => pool.bcryptCompare('pw', '$2b$10$', sleeping));
      const body = { identity: 'admin@example.com', password: 'correct horse' };
      const refused = await full.req('POST', '/api/collections/_superusers/auth-with-password', { body });
      expect(refused.status).toBe(429);
      const signedIn = await other.req('POST', '/api/collections/_superusers/auth-with-password', { body });
      expect(signedIn.status, signedIn.text).toBe(200);
      expect(await Promise.all(held)).toEqual([false, false]);
    } finally {
      await Promise.all([full.close(), other.close()]);
    }
  }, 60_000);
});

describe("a server's scrypt work factor (CoreOptions.scryptN: test suites lower it)", () => {
  const stored = async (h: Harness, email: string) => (await h.core.store.get<{ password: string }>('SELECT password FROM users WHERE email = ?', [email]))?.password;
  const signIn = (h: Harness, identity: string) => h.req('POST', '/api/collections/users/auth-with-password', { body: { identity, password: 'password123' } });
  /** `h`'s data on a new server given `scryptN` (seedOf: on PostgreSQL `h` is closed first). */
  const moved = async (h: Harness, scryptN: number | undefined) => {
    const seed = await seedOf(h.core.store);
    await h.close();
    return harness({ scryptN }, seed);
  };

  it('new hashes use SCRYPT_N unless the server is given another; a hash keeps its own N when the server changes', async () => {
    expect(await new Passwords().hash('pw')).toMatch(/^scrypt\$16384\$8\$1\$/);
    // a harness without the suite's lower factor: the product's default
    const real = await harness({ scryptN: undefined });
    await real.superuser();
    await signUpUser(real, 'real@example.com', 'password123');
    expect(await stored(real, 'real@example.com')).toMatch(/^scrypt\$16384\$8\$1\$/);
    // the same data on a server at 2^10: the old hash still signs in, a new one is made at 2^10
    const low = await moved(real, 1024);
    expect((await signIn(low, 'real@example.com')).status).toBe(200);
    await signUpUser(low, 'low@example.com', 'password123');
    expect(await stored(low, 'low@example.com')).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect((await signIn(low, 'low@example.com')).status).toBe(200);
    // and back at the default, the 2^10 hash signs in too
    const back = await moved(low, undefined);
    try {
      expect((await signIn(back, 'low@example.com')).status).toBe(200);
      expect((await signIn(back, 'real@example.com')).status).toBe(200);
      expect(await stored(back, 'low@example.com')).toMatch(/^scrypt\$1024\$8\$1\$/);
    } finally {
      await back.close();
    }
  }, 60_000);

  it('a factor that is not a power of two from 1024 to 2^17 is refused, naming it, before the data folder is touched', async () => {
    for (const n of [1000, 512, 2 ** 18, 16384.5, Number.NaN]) {
      expect(scryptNProblem(n)).toBe(`scryptN must be a power of two from 1024 to 131072, not ${String(n)}`);
      expect(() => new Passwords(undefined, n)).toThrow(/scryptN must be a power of two/);
    }
    for (const n of [1024, 16384, 2 ** 17]) expect(scryptNProblem(n)).toBeNull();
    const dir = join(await mkdtemp(join(tmpdir(), 'deskbase-scrypt-')), 'data');
    await expect(startServer({ dir, port: 0, uiDir: null, log: () => undefined, scryptN: 4096 + 1 })).rejects.toThrow('scryptN must be a power of two from 1024 to 131072, not 4097');
    expect(existsSync(dir)).toBe(false);
  });
});
