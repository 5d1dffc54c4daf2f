// Stored hashes name their own cost, and any guest's sign-in runs it: a `$2b$31$` bcrypt hash or
// scrypt parameters with a huge `p` must not pin the password workers (issue 21, item 9). Hashes past
// HASH_LIMITS are never run (the ordinary failed sign-in), and a job past the pool's time limit is
// stopped and its worker replaced.
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { storedHashProblem } from '../../server/core/passwords.js';
import { HashJobStopped, ScryptPool } from '../../server/core/scrypt-pool.js';
import { eachSuperuser, harness, signUpUser, type Harness } from '../support/harness.js';

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
