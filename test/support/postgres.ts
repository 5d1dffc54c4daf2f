// A throwaway PostgreSQL 15 cluster for the tests: Vitest global setup of the `postgres` project
// (vitest.config.ts), started once per run and handed to each test file through `inject('postgres')`.
//
// - The cluster lives in a folder under the OS temp dir, listens on a free loopback port only, and is
//   stopped and removed at the end of the run, also when tests fail or the process exits early; a run
//   killed outright (SIGKILL) leaves its cluster to the next run, which stops and removes it.
// - Its default collation is ICU's `en-US` (linguistic: `a` < `B`), not byte order, so a compiled
//   filter or sort that forgets the dialect's `COLLATE "C"` fails here instead of passing by luck.
// - Settings that only trade crash safety for speed (`fsync`, `full_page_writes`, `synchronous_commit`
//   off) are set; nothing that changes what a query answers.
// - The application role (`deskbase`) logs in with a password, is not a superuser and cannot create
//   databases or roles: each test file gets its own database, created by the cluster's superuser and
//   owned by that role (`freshDatabase`), so files run in parallel and the tests see what a team
//   server's role will see.
// - Without PostgreSQL's binaries: under CI (`CI` set) the setup fails loudly; locally the files that
//   need it skip with a message saying why (`describePostgres`).
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);

export interface PostgresInfo {
  /** Empty when PostgreSQL is not installed (locally only: CI fails instead). */
  bin: string;
  host: string;
  port: number;
  /** The cluster's superuser, for creating and dropping each file's database only. */
  adminUser: string;
  adminPassword: string;
  /** The application role: owns its databases, not a superuser. */
  user: string;
  password: string;
  /** Why PostgreSQL is missing, when it is. */
  missing: string;
  /** Milliseconds from initdb to a server accepting connections. */
  startMs: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresInfo;
  }
}

const CANDIDATE_BINS = ['/usr/lib/postgresql/15/bin'];

/** The folder holding initdb, pg_ctl and psql of PostgreSQL 15, or '' when there is none. */
function findBin(): string {
  for (const dir of CANDIDATE_BINS) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir !== '' && existsSync(join(dir, 'initdb')) ? dir : '';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  const isRoot = process.getuid?.() === 0;
  return isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function serverUserIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** psql as the superuser over the loopback port: one statement, its output as text. */
export async function psqlAdmin(info: PostgresInfo, statement: string, database = 'postgres'): Promise<string> {
  const { stdout } = await run(join(info.bin, 'psql'), [
    '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', info.host, '-p', String(info.port), '-U', info.adminUser, '-d', database, '-c', statement,
  ], { env: { ...process.env, PGPASSWORD: info.adminPassword, PGCONNECT_TIMEOUT: '10' } });
  return stdout.trim();
}

/** Whether a process of that id is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Clusters of runs that were killed before their teardown (SIGKILL, a CI timeout): each folder names
 * the test process that made it (`owner`); when that process is gone, its server is stopped and the
 * folder removed.
 */
function sweepAbandoned(bin: string): void {
  const root = tmpdir();
  for (const name of readdirSync(root)) {
    if (!name.startsWith('deskbase-pg-')) continue;
    const dir = join(root, name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner'), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    const [cmd, args] = asServerUser(join(bin, 'pg_ctl'), ['stop', '-D', join(dir, 'data'), '-m', 'immediate', '-s']);
    spawnSync(cmd, args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function startPostgres(project: TestProject): Promise<() => void> {
  const bin = findBin();
  const base: PostgresInfo = { bin, host: '127.0.0.1', port: 0, adminUser: 'postgres', adminPassword: '', user: 'deskbase', password: '', missing: '', startMs: 0 };
  if (bin === '') {
    const missing = 'PostgreSQL 15 is not installed (initdb/pg_ctl not found; `.ci/run` installs the `postgresql` package)';
    if (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') throw new Error(`${missing}: the PostgreSQL tests cannot run in CI without it`);
    console.warn(`[postgres] ${missing}: the PostgreSQL tests are skipped`);
    project.provide('postgres', { ...base, missing });
    return () => {};
  }

  sweepAbandoned(bin);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'deskbase-pg-'));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  const data = join(dir, 'data');
  const owner = serverUserIds();
  if (owner !== null) chownSync(dir, owner.uid, owner.gid);
  const adminPassword = randomBytes(18).toString('base64url');
  const password = randomBytes(18).toString('base64url');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${adminPassword}\n`, { mode: 0o600 });
  if (owner !== null) chownSync(pwfile, owner.uid, owner.gid);
  const port = await freePort();
  const ctl = join(bin, 'pg_ctl');

  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    const [cmd, args] = asServerUser(ctl, ['stop', '-D', data, '-m', 'immediate', '-s']);
    spawnSync(cmd, args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  // A run that dies before its teardown (Ctrl-C, a crash) still leaves no server behind.
  process.once('exit', stop);

  try {
    const icu = ['--locale-provider=icu', '--icu-locale=en-US', '--locale=C.UTF-8'];
    const initdb = (extra: string[]) => {
      const [cmd, args] = asServerUser(join(bin, 'initdb'), [
        '-D', data, '-U', 'postgres', '-E', 'UTF8', '--auth-local=scram-sha-256', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', ...extra,
      ]);
      return spawnSync(cmd, args, { encoding: 'utf8' });
    };
    let init = initdb(icu);
    if (init.status !== 0) {
      // No ICU in this build: byte order can still be checked against the collation the dialect sets.
      rmSync(data, { recursive: true, force: true });
      init = initdb(['--locale=C.UTF-8']);
    }
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
    const options = [
      `-p ${port}`, "-c listen_addresses='127.0.0.1'", `-c unix_socket_directories='${dir}'`,
      '-c fsync=off', '-c full_page_writes=off', '-c synchronous_commit=off', '-c max_connections=200',
      '-c shared_buffers=64MB',
    ].join(' ');
    const [cmd, args] = asServerUser(ctl, ['start', '-D', data, '-w', '-t', '60', '-s', '-l', join(dir, 'server.log'), '-o', options]);
    const start = spawnSync(cmd, args, { encoding: 'utf8' });
    if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.stderr || start.stdout}`);
    const info: PostgresInfo = { ...base, port, adminPassword, password, startMs: 0 };
    await psqlAdmin(info, `CREATE ROLE deskbase LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    info.startMs = Math.round(performance.now() - started);
    console.log(`[postgres] PostgreSQL 15 ready on 127.0.0.1:${port} in ${info.startMs} ms`);
    project.provide('postgres', info);
  } catch (err) {
    stop();
    throw err;
  }
  return () => {
    process.removeListener('exit', stop);
    stop();
  };
}
