// Attack findings (issue 25, team server): `npm run serve -- --db URL` (server/cli.ts) with bad URLs.
// The real CLI as a child process; the real PostgreSQL of the test run for the wrong password. What
// passes stays a plain test; each defect is an it.fails whose assertion is what should happen.
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { describePostgres, postgresInfo } from '../support/pg-database.js';

const SECRET = 'S3cretPW-do-not-print';

/** The CLI's output and exit code, or `timedOut` when it is still running after `ms`. */
function serve(url: string, ms = 20_000): Promise<{ code: number | null; out: string; timedOut: boolean; ms: number }> {
  return new Promise((done) => {
    const start = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', '--db', url, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, out, timedOut: code === null, ms: Date.now() - start });
    });
  });
}

describePostgres('the CLI\'s --db with bad URLs (attack findings)', () => {
  it('a wrong password: a clear message, exit 1, the password never printed', async () => {
    const { host, port, user } = postgresInfo();
    const r = await serve(`postgres://${user}:${SECRET}@${host}:${port}/postgres`);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/password authentication failed/);
    expect(r.out).not.toContain(SECRET);
  }, 30_000);

  // Fixed here (a one-liner in server/cli.ts): the message echoed the URL with its password.
  it('a URL of another scheme is refused without printing its password', async () => {
    const r = await serve(`mysql://u:${SECRET}@db.example/app`);
    expect(r.code).toBe(2);
    expect(r.out).not.toContain(SECRET);
    expect(r.out).toContain('mysql://u:***@db.example/app');
  }, 30_000);

  // Was decodeURIComponent's bare "URI malformed", which names neither --db nor what is wrong. Now the
  // message names --db and says to percent-encode (a `%` in a password is written %25); the password
  // is not printed.
  it('a password with a bare % gets a message that names --db and says to percent-encode it', async () => {
    const r = await serve('postgres://u:50%off@127.0.0.1:1/db');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/--db URL is not valid.*percent-encode.*%25/);
    expect(r.out).not.toContain('50%off');
  }, 30_000);

  // A host that takes the connection and never answers (a port forward to nothing, a wrong port on a
  // firewall that accepts): the CLI waited forever, printing nothing (also seen with an unroutable
  // address, 10.255.255.1: no output after 120 s). Now: "Connecting to <the URL, password hidden>..."
  // at once, then "could not reach PostgreSQL at HOST:PORT" after the wait for a connection (5 s), exit 1.
  it('a host that accepts and never answers: "Connecting to..." at once, a clear message within the connect timeout, exit 1', async () => {
    const sockets: Socket[] = [];
    const mute = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    try {
      const port = (mute.address() as { port: number }).port;
      const r = await serve(`postgres://u:${SECRET}@127.0.0.1:${port}/db`, 20_000);
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(new RegExp(`^Connecting to postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/db\\.\\.\\.\n`));
      expect(r.out).toMatch(new RegExp(`could not reach PostgreSQL at 127\\.0\\.0\\.1:${port}: no connection within 5 s`, "i"));
      expect(r.ms).toBeGreaterThan(4_000);
      expect(r.out).not.toContain(SECRET);
    } finally {
      for (const s of sockets) s.destroy();
      mute.close();
    }
  }, 30_000);
});
