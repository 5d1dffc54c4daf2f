// A throwaway PostgreSQL cluster on loopback, started from the installed binaries (PostgreSQL 15 from
// apt): what the tests' global setup (test/support/postgres.ts) and the bench's team-server phase
// (bench/team.ts) both start. The cluster lives in a folder under the OS temp dir (`deskbase-pg-*`),
// listens on a free loopback port only, has a superuser and an application role (`deskbase`: logs in
// with a password, no superuser, cannot create databases or roles), and `stop()` stops it and removes
// the folder, also when the process exits early; a process killed outright leaves its cluster to the
// next start, which stops and removes it (each folder names the process that made it).
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { probePort } from '../server/http/listener.js';

const run = promisify(execFile);

export interface ClusterInfo {
  /** The folder of initdb, pg_ctl and psql. */
  bin: string;
  host: string;
  port: number;
  /** The cluster's superuser (creating and dropping databases only). */
  adminUser: string;
  adminPassword: string;
  /** The application role: owns its databases, not a superuser. */
  user: string;
  password: string;
  /** Milliseconds from initdb to a server accepting connections. */
  startMs: number;
}

export interface Cluster {
  info: ClusterInfo;
  /** Stops the server (immediately: nothing in it is kept) and removes its folder. */
  stop(): void;
}

const CANDIDATE_BINS = ['/usr/lib/postgresql/15/bin'];

/** What to say when there is no PostgreSQL to start. */
export const POSTGRES_MISSING = 'PostgreSQL 15 is not installed (initdb/pg_ctl not found; `.ci/run` installs the `postgresql` package)';

/** The folder holding initdb, pg_ctl and psql of PostgreSQL 15, or '' when there is none. */
export function findPostgresBin(): string {
  for (const dir of CANDIDATE_BINS) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir !== '' && existsSync(join(dir, 'initdb')) ? dir : '';
}

/** A loopback port free now (nothing listens on it): the one probe, http/listener.ts `probePort`. */
/** A loopback port free now: the one probe, http/listener.ts `probePort`. */
export async function freePort(): Promise<number> {
  return (await probePort('127.0.0.1', 0)) ?? Promise.reject(new Error('no free loopback port'));
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  const isRoot = process.getuid?.() === 0;
  return isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

/** The `postgres` user's ids when running as root (PostgreSQL refuses root), else null. */
export function serverUserIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** psql as the superuser over the loopback port: one statement, its output as text. */
export async function psqlAdmin(info: ClusterInfo, statement: string, database = 'postgres'): Promise<string> {
  const { stdout } = await run(join(info.bin, 'psql'), [
    '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', info.host, '-p', String(info.port), '-U', info.adminUser, '-d', database, '-c', statement,
  ], { env: { ...process.env, PGPASSWORD: info.adminPassword, PGCONNECT_TIMEOUT: '10' } });
  return stdout.trim();
}

/** Whether a process of that id is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Clusters of processes killed before they stopped theirs (SIGKILL, a CI timeout): each folder names
 * the process that made it (`owner`); when that process is gone, its server is stopped and the folder
 * removed.
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

export interface ClusterOptions {
  /** Server settings (`-c name=value` each): the tests trade crash safety for speed, the bench does not. */
  settings: string[];
  /** ICU's `en-US` as the default collation (linguistic), so SQL that forgets `COLLATE "C"` shows it. */
  icu?: boolean;
}

/** Starts a cluster from the binaries in `bin` (findPostgresBin) and creates the application role. */
export async function startCluster(bin: string, options: ClusterOptions): Promise<Cluster> {
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
    process.removeListener('exit', stop);
    const [cmd, args] = asServerUser(ctl, ['stop', '-D', data, '-m', 'immediate', '-s']);
    spawnSync(cmd, args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  // A process that dies before it stops the cluster (Ctrl-C, a crash) still leaves no server behind.
  process.once('exit', stop);

  try {
    const initdb = (extra: string[]) => {
      const [cmd, args] = asServerUser(join(bin, 'initdb'), [
        '-D', data, '-U', 'postgres', '-E', 'UTF8', '--auth-local=scram-sha-256', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync', ...extra,
      ]);
      return spawnSync(cmd, args, { encoding: 'utf8' });
    };
    let init = initdb(options.icu === true ? ['--locale-provider=icu', '--icu-locale=en-US', '--locale=C.UTF-8'] : ['--locale=C.UTF-8']);
    if (init.status !== 0 && options.icu === true) {
      // No ICU in this build: byte order can still be checked against the collation the dialect sets.
      rmSync(data, { recursive: true, force: true });
      init = initdb(['--locale=C.UTF-8']);
    }
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
    const settings = [`-p ${port}`, "-c listen_addresses='127.0.0.1'", `-c unix_socket_directories='${dir}'`, ...options.settings.map((s) => `-c ${s}`)].join(' ');
    const [cmd, args] = asServerUser(ctl, ['start', '-D', data, '-w', '-t', '60', '-s', '-l', join(dir, 'server.log'), '-o', settings]);
    const start = spawnSync(cmd, args, { encoding: 'utf8' });
    if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.stderr || start.stdout}`);
    const info: ClusterInfo = { bin, host: '127.0.0.1', port, adminUser: 'postgres', adminPassword, user: 'deskbase', password, startMs: 0 };
    await psqlAdmin(info, `CREATE ROLE deskbase LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    info.startMs = Math.round(performance.now() - started);
    return { info, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/** A new database owned by the application role (created by the superuser); its URL for the application role. */
export async function createDatabase(info: ClusterInfo, name: string): Promise<string> {
  if (!/^\w+$/.test(name)) throw new Error(`unsafe database name ${JSON.stringify(name)}`);
  await psqlAdmin(info, `CREATE DATABASE "${name}" OWNER "${info.user}" TEMPLATE template0 ENCODING 'UTF8'`);
  return `postgres://${info.user}:${encodeURIComponent(info.password)}@${info.host}:${info.port}/${name}`;
}
