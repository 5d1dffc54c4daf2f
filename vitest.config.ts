import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import solid from 'vite-plugin-solid';

// Tests whose assertions are time bounds measured on a server in a child process or over a real socket
// (the health of /api/health while a hostile client runs, a subscriber's latency...), or on a stretch
// of work in the test's own process (a hostile filter parsed, a realtime flush round, native text binding against sql.js's),
// or that hold every core with busy processes (the worker pool's niced job). They run in a group of
// their own after the parallel projects and the e2e files, two at a time: their bounds count work (the
// server's CPU, workWatch), not a loaded machine's wall clock, and one at a time they left a third of
// the two cores idle (its 23 files then: 141 s one at a time, 95 and 96 s two at a time, green each time).
const TIMED = [
  'test/filter/parser.test.ts',
  'test/filter/hostile.test.ts',
  'test/filter/like.test.ts',
  'test/realtime/flush.test.ts',
  'test/store/text-binding.test.ts',
  'test/store/inspect.test.ts',
  'test/realtime/hostile.test.ts',
  'test/realtime/budget.test.ts',
  'test/security/event-loop.test.ts',
  'test/security/stalls.test.ts',
  'test/security/long-operations.test.ts',
  'test/security/query-deadline.test.ts',
  'test/security/saturated.test.ts',
  'test/security/imports.test.ts',
  'test/security/write-budgets.test.ts',
  'test/http/connections.test.ts',
  'test/collections/view-budget.test.ts',
  'test/files/large-upload.test.ts',
  'test/logs/log-flood.test.ts',
  'test/store/page-cache-memory.test.ts',
  'test/workers/worker-pool.test.ts',
  'test/auth/hash-priority.test.ts',
  'test/postgres/busy-budget.test.ts',
  'test/postgres/hostile-pool.test.ts',
];

// The API suites that also run on PostgreSQL (issue 25's proof): the same files, their harness on a
// fresh database of the run's PostgreSQL 15 (test/support/test-store.ts). docs/architecture.md ("The
// PostgreSQL store") lists which suites are not here yet, and why.
const ON_BOTH_ENGINES = [
  'test/hooks/record-events.test.ts',
  'test/hooks/migrations.test.ts',
  'test/hooks/db.test.ts',
  'test/hooks/db-read-writes.test.ts',
  'test/hooks/db-determinism.test.ts',
  'test/hooks/safety.test.ts',
  'test/hooks/stopped-writes.test.ts',
  'test/hooks/app-api.test.ts',
  'test/hooks/events.test.ts',
  'test/hooks/reload.test.ts',
  'test/hooks/pool.test.ts',
  'test/hooks/mails.test.ts',
  'test/hooks/filesystem.test.ts',
  'test/records/engine.test.ts',
  'test/records/read-columns.test.ts',
  'test/auth/origin.test.ts',
  'test/auth/record-sessions.test.ts',
  'test/records/concurrency.test.ts',
  'test/records/write.test.ts',
  'test/records/paging.test.ts',
  'test/records/expand.test.ts',
  'test/records/fields-param.test.ts',
  'test/records/response-bytes.test.ts',
  'test/records/value-sizes.test.ts',
  'test/records/back-relation.test.ts',
  'test/rules/bypass.test.ts',
  'test/rules/record-rules.test.ts',
  'test/collections/schema-api.test.ts',
  'test/auth/auth-records.test.ts',
  'test/auth/sessions.test.ts',
  'test/auth/setup.test.ts',
  'test/auth/sign-in.test.ts',
  'test/auth/hash-limits.test.ts',
  'test/auth/otp.test.ts',
  'test/auth/otp-enumeration.test.ts',
  'test/auth/mfa.test.ts',
  'test/auth/auth-alert.test.ts',
  'test/http/envelope.test.ts',
  'test/http/sdk-differences.test.ts',
  'test/http/sdk-kept.test.ts',
  'test/http/sdk-tokens.test.ts',
  'test/batch/url-encoding.test.ts',
  'test/files/uploads.test.ts',
  'test/files/downloads.test.ts',
  'test/files/deletes.test.ts',
  'test/collections/view-collections.test.ts',
  'test/collections/view-import.test.ts',
  'test/http/prototype-keys.test.ts',
  'test/http/bodies.test.ts',
  'test/http/limits.test.ts',
  'test/http/hosts.test.ts',
  'test/http/body-budget.test.ts',
  'test/http/busy-store.test.ts',
  'test/http/sdk-pocketbase.test.ts',
  'test/http/fast-reads.test.ts',
  'test/http/read-cache.test.ts',
  'test/transfer/pocketbase-import.test.ts',
  'test/transfer/pocketbase-plan.test.ts',
  'test/transfer/schema-import.test.ts',
  'test/records/hidden-columns.test.ts',
  'test/auth/old-password-block.test.ts',
  'test/auth/email-change-guess.test.ts',
  'test/records/cascade.test.ts',
  'test/transfer/records-transfer.test.ts',
  'test/records/list.test.ts',
  'test/records/budget-wait.test.ts',
  'test/rules/request-rules.test.ts',
  'test/batch/sdk.test.ts',
  'test/realtime/sdk.test.ts',
  'test/realtime/fan-out-streams.test.ts',
  'test/collections/maintained-indexes.test.ts',
  'test/filter/datetime-literals.test.ts',
  'test/transfer/records-export-ids.test.ts',
  'test/transfer/typescript-types.test.ts',
  'test/transfer/pocketbase-refusals.test.ts',
  'test/transfer/records-export-budget.test.ts',
  'test/auth/account-mail.test.ts',
  'test/auth/impersonate.test.ts',
  'test/auth/oauth2.test.ts',
  'test/http/rate-limits.test.ts',
  'test/auth/account-rows.test.ts',
  'test/logs/logs-api.test.ts',
  'test/logs/retention.test.ts',
  'test/hooks/cron.test.ts',
  'test/hooks/cron-api.test.ts',
  'test/hooks/routes.test.ts',
];

// `npm run test:fast` (`vitest run --mode fast`): the edit-run loop, without the browser tests, the
// crash loops, the build of the desktop app and the timed child-server tests (large uploads included).
const SLOW = ['test/crash/**', 'test/fuzz/journal.test.ts', 'test/main/build.test.ts'];

// Projects: vite-plugin-solid makes `sql.js` resolve to its browser build, so the server and
// main-process tests must run in a plain node project without it (docs/architecture.md, "Toolchain facts").
export default defineConfig(({ mode }) => ({
  test: {
    // Files at once in the parallel projects (node, postgres, postgres-api, ui). Vitest's default, one
    // core less than the machine has, is one worker on CI's two cores: the whole suite one file at a
    // time, though a file keeps about one core busy (its server and client in the worker, PostgreSQL's
    // backends beside it), so the second core idled. Two at least; then the e2e project, two files at a
    // time in a group of its own (sequence.groupOrder 1), then timed, two at a time (2), and last
    // failover, alone (3).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // `node` and `timed` run without Vitest's isolation (`isolate: false`): a worker evaluates the
    // server's ~270 modules once and runs file after file on them, instead of a fresh child per file
    // spending about 1.25 s of CPU on its imports first (profiled: 35% of the node project's CPU). Alone
    // on this machine the node project took 491 s isolated and 387 s without (import 172 s -> 25 s
    // summed over files), all green. A server or store a test leaves open lives on in its worker: the
    // PostgreSQL projects stay isolated, since there what earlier files left open (pools, the bus's
    // listeners) took PostgreSQL's connections and CPU from the later ones (a CI run without isolation:
    // postgres-api 496 -> 967 s of file time, 503s for want of a connection, deep cascades past 30 s).
    // `main` (the desktop shell's, which mock `electron`), `e2e` and `ui` stay isolated too.
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          isolate: false,
          setupFiles: ['test/support/leak-guard.ts'],
          include: ['test/**/*.test.ts'],
          exclude: ['test/ui/**', 'test/e2e/**', 'test/postgres/**', 'test/failover/**', 'test/main/**', ...TIMED, ...(mode === 'fast' ? SLOW : [])],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The desktop shell's tests, isolated: some replace the `electron` module (vi.mock), which a
          // worker's module cache shared with the files before would not see, or would leak to those after.
          name: 'main',
          environment: 'node',
          include: ['test/main/**/*.test.ts'],
          exclude: mode === 'fast' ? SLOW : [],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Tests on a real PostgreSQL 15: one throwaway cluster per run (test/support/postgres.ts), a
          // database per file (test/support/pg-database.ts), files in parallel.
          name: 'postgres',
          environment: 'node',
          include: ['test/postgres/**/*.test.ts'],
          exclude: TIMED,
          globalSetup: ['test/support/postgres.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // ON_BOTH_ENGINES again, on PostgreSQL: the run's one cluster (test/support/postgres.ts), a database per harness.
          name: 'postgres-api',
          environment: 'node',
          include: ON_BOTH_ENGINES,
          exclude: TIMED,
          globalSetup: ['test/support/postgres.ts'],
          env: { DESKBASE_TEST_ENGINE: 'postgres' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'timed',
          environment: 'node',
          isolate: false,
          setupFiles: ['test/support/leak-guard.ts'],
          include: TIMED,
          // the timed files on PostgreSQL (test/postgres/busy-budget.test.ts) take the run's cluster
          globalSetup: ['test/support/postgres.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // after the e2e group (1), two files at a time (TIMED above), in a group of its own: never
          // beside the parallel projects' or the browsers' load
          sequence: { groupOrder: 2 },
          maxWorkers: 2,
        },
      },
      {
        test: {
          // Issue 25's crash and failover proof: a Patroni cluster (etcd + three PostgreSQL 15) per
          // file (test/support/patroni.ts), team-server nodes as child processes; timed and heavy, so
          // one file at a time in the sequential group, never beside the other PostgreSQL projects.
          name: 'failover',
          environment: 'node',
          include: ['test/failover/**/*.test.ts'],
          testTimeout: 150_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // last, alone (after timed)
          sequence: { groupOrder: 3 },
          maxWorkers: 1,
        },
      },
      {
        plugins: [solid()],
        resolve: { conditions: ['development', 'browser'] },
        test: {
          name: 'ui',
          environment: 'happy-dom',
          include: ['test/ui/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          setupFiles: ['test/support/ui-setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          // expect.poll's 1 s default is shorter than a sign-in and a page's load on a loaded machine (seen at
          // load 17: data-grid's revoked-session poll); a poll still fails on a state that never comes
          expect: { poll: { timeout: 10_000 } },
          include: ['test/e2e/**/*.test.ts'],
          // the admin UI, built once per run
          globalSetup: ['test/support/build-ui.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two files at a time, in a group of their own after the parallel projects (groupOrder 1) and
          // before the sequential ones (timed, failover: vitest runs those last, alone). One at a time
          // they kept about one core of two busy (the project's CPU, 226-235 s a run here, is about CI's
          // 251 s of wall), each file waiting on Chromium, the server and the test in turn. Side by side
          // on the same loaded machine the project took 716 s two at a time against 1,017 s one at a
          // time (load 17-23), 1,001 s against 1,664 s (load 25-30); docs/architecture.md, "Tests".
          sequence: { groupOrder: 1 },
          maxWorkers: 2,
        },
      },
    ],
  },
}));
