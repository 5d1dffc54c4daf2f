// A throwaway PostgreSQL 15 cluster for the tests: Vitest global setup of the projects that use it
// (`postgres`, `postgres-api`, `timed` in vitest.config.ts), started once per run for all of them and
// handed to each test file through `inject('postgres')`. The cluster itself is
// scripts/postgres-cluster.ts's (the bench's team-server phase starts it too).
//
// - One cluster, not one per project: Vitest runs each project's global setup one after another before
//   any file starts, so every cluster more was an initdb and a start the whole run waited for. The
//   projects' setups share it through the main process (they are separate module instances there);
//   the last project's teardown stops it. Files never share a database (`freshDatabase`), and what a
//   test reads cluster-wide (`pg_stat_activity`) it filters by its own database.
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
import type { TestProject } from 'vitest/node';
import { findPostgresBin, POSTGRES_MISSING, startCluster, type ClusterInfo } from '../../scripts/postgres-cluster.js';

export { psqlAdmin } from '../../scripts/postgres-cluster.js';

export interface PostgresInfo extends ClusterInfo {
  /** Why PostgreSQL is missing, when it is (locally only: CI fails instead); empty otherwise. */
  missing: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresInfo;
  }
}

/** The run's cluster, shared by the projects' global setups (one module instance each) through the main process. */
interface Shared {
  cluster: Promise<{ info: PostgresInfo; stop: () => void }>;
  /** Projects whose teardown has not run yet. */
  users: number;
}
const SHARED = Symbol.for('deskbase.test-postgres');

async function start(): Promise<{ info: PostgresInfo; stop: () => void }> {
  const bin = findPostgresBin();
  if (bin === '') {
    if (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') throw new Error(`${POSTGRES_MISSING}: the PostgreSQL tests cannot run in CI without it`);
    console.warn(`[postgres] ${POSTGRES_MISSING}: the PostgreSQL tests are skipped`);
    return { info: { bin, host: '127.0.0.1', port: 0, adminUser: 'postgres', adminPassword: '', user: 'deskbase', password: '', missing: POSTGRES_MISSING, startMs: 0 }, stop: () => {} };
  }
  const cluster = await startCluster(bin, {
    icu: true,
    settings: ['fsync=off', 'full_page_writes=off', 'synchronous_commit=off', 'max_connections=200', 'shared_buffers=64MB'],
  });
  console.log(`[postgres] PostgreSQL 15 ready on 127.0.0.1:${cluster.info.port} in ${cluster.info.startMs} ms`);
  return { info: { ...cluster.info, missing: '' }, stop: () => cluster.stop() };
}

export default async function startPostgres(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [SHARED]?: Shared };
  const shared = (holder[SHARED] ??= { cluster: start(), users: 0 });
  shared.users++;
  const teardown = async (): Promise<void> => {
    if (--shared.users > 0) return;
    if (holder[SHARED] === shared) delete holder[SHARED];
    (await shared.cluster.catch(() => null))?.stop();
  };
  try {
    project.provide('postgres', (await shared.cluster).info);
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
