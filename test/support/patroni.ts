// A PostgreSQL 15 cluster made highly available by Patroni with etcd, on loopback, for the failover
// tests (test/failover/): one etcd and three members, each a Patroni with its PostgreSQL, in a folder
// under the OS temp dir. The README's "Team server" section shows the same configuration.
//
// - synchronous_mode: the primary acknowledges a commit once its synchronous standby has it, and
//   Patroni promotes only that standby when the primary is lost: no acknowledged write is lost.
// - PostgreSQL and Patroni run as the `postgres` user when the tests run as root (initdb and pg_ctl
//   refuse root), etcd as the test's user. `fsync` is off for speed: the tests kill processes, never
//   the machine, so the kernel keeps every written page.
// - The application role (`deskbase`) owns its database (`deskbase`) and is not a superuser.
// - Torn down by `stop()`, also when the process exits before; a run killed outright (SIGKILL) leaves
//   its cluster to the next one, which kills its processes (by the ids it wrote down) and removes it.
// - The primary is whichever member Patroni's REST API names leader (`GET /cluster`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alive, freePort, serverUserIds } from '../../scripts/postgres-cluster.js';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PatroniMember {
  name: string;
  /** PostgreSQL's port on 127.0.0.1. */
  port: number;
  /** Patroni's REST API port on 127.0.0.1. */
  restPort: number;
  dataDir: string;
  patroni: ChildProcess;
}

export interface ClusterMember {
  name: string;
  role: string;
  state: string;
  host: string;
  port: number;
  timeline?: number;
  lag?: number | string;
}

export interface PatroniCluster {
  dir: string;
  members: PatroniMember[];
  /** The multi-host URL of the application role: postgres://deskbase:...@H1:P1,H2:P2,H3:P3/deskbase?target_session_attrs=primary */
  url: string;
  user: string;
  password: string;
  database: string;
  /** Milliseconds from the first process started to a leader with its synchronous standby. */
  readyMs: number;
  /** Patroni's view of the cluster (`GET /cluster` on a live member). */
  cluster(): Promise<ClusterMember[]>;
  /** The member that is primary now (Patroni's leader, running). */
  primary(): Promise<PatroniMember>;
  /** Waits until a running leader has a synchronous standby, other than `not` when given. */
  waitForLeader(options?: { not?: string; timeoutMs?: number }): Promise<PatroniMember>;
  /**
   * The loss of a member's machine: kill -9 of its Patroni, its postmaster and every backend of it
   * (by their ids). Resolves once they are gone.
   */
  killMember(member: PatroniMember): Promise<void>;
  /** SIGSTOP (`true`) or SIGCONT (`false`) to a member's postmaster and backends: a standby that stops answering, then answers again. */
  pauseMember(member: PatroniMember, paused: boolean): void;
  /** The member of that name. */
  member(name: string): PatroniMember;
  /** psql as the superuser on a member: one statement, its output as text. */
  psql(member: PatroniMember, statement: string, database?: string): string;
  stop(): void;
}

/** Why the cluster cannot run here, or '' when it can. */
export function patroniMissing(): string {
  const missing = [
    existsSync(join(PG_BIN, 'initdb')) ? null : 'PostgreSQL 15 (postgresql)',
    commandExists('patroni') ? null : 'Patroni (patroni)',
    commandExists('etcd') ? null : 'etcd (etcd-server)',
  ].filter((m) => m !== null);
  return missing.length === 0 ? '' : `not installed: ${missing.join(', ')}; \`.ci/run\` installs them`;
}

function commandExists(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The postmaster of a data folder (first line of postmaster.pid), or null. */
function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The children of a process (its backends, for a postmaster). */
function childrenOf(pid: number): number[] {
  const out = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  return out.stdout.split('\n').filter((l) => l.trim() !== '').map(Number);
}

/** Kills what a cluster folder's `pids` file names, and every postmaster of its data folders. */
function killCluster(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pm = postmasterPid(join(dir, name));
    if (pm !== null && alive(pm) && isPostgres(pm)) {
      const children = childrenOf(pm);
      killPid(pm);
      for (const child of children) killPid(child);
    }
  }
  let pids: number[] = [];
  try {
    pids = readFileSync(join(dir, 'pids'), 'utf8').split('\n').filter((l) => l !== '').map(Number);
  } catch {
    // none started
  }
  for (const pid of pids) if (alive(pid)) killPid(pid);
}

/** Whether a pid is a postgres process (a stale postmaster.pid may name a reused id). */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres');
  } catch {
    return false;
  }
}

/** Clusters of runs killed before their teardown: their owner process is gone. */
function sweepAbandoned(): void {
  const root = tmpdir();
  for (const name of readdirSync(root)) {
    if (!name.startsWith('deskbase-patroni-')) continue;
    const dir = join(root, name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner'), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    killCluster(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The YAML of one member (JSON is YAML): what the README shows, with this run's ports and folders. */
export function memberConfig(o: {
  name: string; dir: string; port: number; restPort: number; etcdPort: number; superPassword: string; replPassword: string;
}): Record<string, unknown> {
  return {
    scope: 'deskbase',
    name: o.name,
    restapi: { listen: `127.0.0.1:${o.restPort}`, connect_address: `127.0.0.1:${o.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${o.etcdPort}`] },
    bootstrap: {
      dcs: {
        // the leader key lives 10 s without renewal; each member looks every second
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 4,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: false,
          parameters: { max_connections: 100, shared_buffers: '32MB', fsync: 'off', full_page_writes: 'off', wal_level: 'replica', hot_standby: 'on', max_wal_senders: 10, max_replication_slots: 10 },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }, { 'auth-host': 'scram-sha-256' }, { 'auth-local': 'peer' }],
    },
    postgresql: {
      listen: `127.0.0.1:${o.port}`,
      connect_address: `127.0.0.1:${o.port}`,
      data_dir: join(o.dir, o.name),
      bin_dir: PG_BIN,
      pgpass: join(o.dir, `pgpass-${o.name}`),
      authentication: {
        superuser: { username: 'postgres', password: o.superPassword },
        replication: { username: 'replicator', password: o.replPassword },
      },
      parameters: { unix_socket_directories: o.dir },
      pg_hba: [
        'local all postgres peer',
        'host replication replicator 127.0.0.1/32 scram-sha-256',
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
  };
}

export async function startPatroniCluster(): Promise<PatroniCluster> {
  sweepAbandoned();
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'deskbase-patroni-'));
  writeFileSync(join(dir, 'owner'), String(process.pid));
  const owner = serverUserIds();
  if (owner !== null) chownSync(dir, owner.uid, owner.gid);
  const asServer = owner === null ? {} : { uid: owner.uid, gid: owner.gid };
  const superPassword = randomBytes(18).toString('base64url');
  const replPassword = randomBytes(18).toString('base64url');
  const password = randomBytes(18).toString('base64url');
  const remember = (pid: number | undefined) => pid !== undefined && appendFileSync(join(dir, 'pids'), `${pid}\n`);

  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    killCluster(dir);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);

  try {
    const etcdPort = await freePort();
    const etcdPeerPort = await freePort();
    const etcdDir = join(dir, 'etcd');
    mkdirSync(etcdDir);
    const etcdLog = openSync(join(dir, 'etcd.log'), 'a');
    const etcd = spawn('etcd', [
      '--name', 'etcd1', '--data-dir', etcdDir,
      '--listen-client-urls', `http://127.0.0.1:${etcdPort}`, '--advertise-client-urls', `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${etcdPeerPort}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-cluster', `etcd1=http://127.0.0.1:${etcdPeerPort}`, '--initial-cluster-state', 'new',
    ], { stdio: ['ignore', etcdLog, etcdLog] });
    remember(etcd.pid);

    const members: PatroniMember[] = [];
    const cluster = async (): Promise<ClusterMember[]> => {
      for (const m of members) {
        try {
          const res = await fetch(`http://127.0.0.1:${m.restPort}/cluster`, { signal: AbortSignal.timeout(1000) });
          if (res.ok) return ((await res.json()) as { members: ClusterMember[] }).members;
        } catch {
          // this member is down: ask the next
        }
      }
      throw new Error('no Patroni member answers');
    };
    const leaderOf = async (among: PatroniMember[], not?: string): Promise<PatroniMember | null> => {
      let list: ClusterMember[];
      try {
        list = await cluster();
      } catch {
        return null;
      }
      const leader = list.find((m) => m.role === 'leader' && m.state === 'running' && m.name !== not);
      return leader === undefined ? null : among.find((m) => m.name === leader.name) ?? null;
    };
    const waitForLeader = async (options: { not?: string; timeoutMs?: number } = {}): Promise<PatroniMember> => {
      let found: PatroniMember | null = null;
      await waitFor(async () => {
        const list = await cluster().catch(() => []);
        const hasSync = list.some((m) => m.role === 'sync_standby' && (m.state === 'running' || m.state === 'streaming'));
        found = hasSync ? await leaderOf(members, options.not) : null;
        return found !== null;
      }, options.timeoutMs ?? 60_000, 'a leader with a synchronous standby');
      return found!;
    };
    for (const name of ['pg1', 'pg2', 'pg3']) {
      const port = await freePort();
      const restPort = await freePort();
      const config = join(dir, `${name}.yml`);
      writeFileSync(config, JSON.stringify(memberConfig({ name, dir, port, restPort, etcdPort, superPassword, replPassword }), null, 2));
      const log = openSync(join(dir, `${name}.log`), 'a');
      if (owner !== null) chownSync(config, owner.uid, owner.gid);
      const patroni = spawn('patroni', [config], { ...asServer, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' }, stdio: ['ignore', log, log] });
      remember(patroni.pid);
      members.push({ name, port, restPort, dataDir: join(dir, name), patroni });
      // the first member bootstraps alone; the others then clone it
      if (members.length === 1) await waitFor(async () => (await leaderOf(members)) !== null, 60_000, 'the first member to bootstrap');
    }

    function psql(member: PatroniMember, statement: string, database = 'postgres'): string {
      const out = spawnSync(join(PG_BIN, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(member.port), '-U', 'postgres', '-d', database, '-c', statement], {
        encoding: 'utf8', env: { ...process.env, PGPASSWORD: superPassword, PGCONNECT_TIMEOUT: '5' },
      });
      if (out.status !== 0) throw new Error(`psql on ${member.name} failed: ${out.stderr}`);
      return out.stdout.trim();
    }

    const leader = await waitForLeader();
    psql(leader, `CREATE ROLE deskbase LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    psql(leader, 'CREATE DATABASE deskbase OWNER deskbase');
    const hosts = members.map((m) => `127.0.0.1:${m.port}`).join(',');
    const url = `postgres://deskbase:${password}@${hosts}/deskbase?target_session_attrs=primary`;
    const readyMs = Math.round(performance.now() - started);

    const killMember = async (member: PatroniMember): Promise<void> => {
      const pm = postmasterPid(member.dataDir);
      const doomed = [member.patroni.pid!, ...(pm !== null && isPostgres(pm) ? [pm, ...childrenOf(pm)] : [])];
      for (const pid of doomed) killPid(pid);
      await waitFor(async () => doomed.every((pid) => !alive(pid) || zombie(pid)), 10_000, `${member.name}'s processes to die`);
    };

    const pauseMember = (member: PatroniMember, paused: boolean): void => {
      const pm = postmasterPid(member.dataDir);
      if (pm === null || !isPostgres(pm)) throw new Error(`${member.name} has no running postmaster`);
      for (const pid of [pm, ...childrenOf(pm)]) process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
    };
    const member = (name: string): PatroniMember => {
      const found = members.find((m) => m.name === name);
      if (found === undefined) throw new Error(`no member ${name}`);
      return found;
    };

    return {
      dir, members, url, user: 'deskbase', password, database: 'deskbase', readyMs,
      cluster, waitForLeader, killMember, pauseMember, member, psql, stop,
      primary: async () => {
        const leader = await leaderOf(members);
        if (leader === null) throw new Error('the cluster has no running leader');
        return leader;
      },
    };
  } catch (err) {
    const logs = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => `--- ${f}\n${readFileSync(join(dir, f), 'utf8').slice(-3000)}`).join('\n');
    stop();
    throw new Error(`the Patroni cluster did not start: ${err instanceof Error ? err.message : String(err)}\n${logs}`, { cause: err });
  }
}

/** A killed child not yet reaped by its parent (Patroni reaps its postmaster; we reap Patroni). */
function zombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
