// Which node runs a cron job's tick: the one whose claim row (`_cronRuns`, store/schema.ts and
// store-postgres/schema.ts) goes in first. A job whose last claimed run has not finished (on any node)
// is skipped until it does (a closing node marks its runs finished), or until that claim is older than
// `staleMs` (a node that died mid-run).
// Same statements on both engines: `INSERT ... ON CONFLICT DO NOTHING` and plain reads.
import type { Store } from '../store/db.js';

export type Claim = 'run' | 'taken' | 'running';

/** How long a claim keeps its job's later ticks from running when its run never reports finishing. */
export const STALE_RUN_MS = 15 * 60_000;
/** Claims older than this are deleted at each claim. */
const KEEP_CLAIMS_MS = 24 * 60 * 60_000;

export interface CronClaims {
  /** Claims `tick` of `job` for this node: 'run' when it is ours to run, 'taken' when another node has it, 'running' when a run is still going. */
  claim(job: string, tick: number, now: number): Promise<Claim>;
  /** Marks this node's run of `tick` finished (so the next tick may run). */
  finish(job: string, tick: number, now: number): Promise<void>;
  /** Marks every run of this node finished (it is closing: its runs end with it). */
  release(now: number): Promise<void>;
}

/**
 * `crossNode`: whether other nodes share the database (a team server), so a run still going elsewhere
 * holds the job back; on the desktop one process holds the folder, and its own runs are known in memory.
 */
export function storeClaims(store: Store, node: string, options: { crossNode: boolean; staleMs?: number }): CronClaims {
  const staleMs = options.staleMs ?? STALE_RUN_MS;
  return {
    claim: (job, tick, now) =>
      store.write(async (tx) => {
        const open = !options.crossNode ? undefined : await tx.get<{ node: string }>(
          'SELECT "node" FROM "_cronRuns" WHERE "job" = ? AND "tick" < ? AND "finished" IS NULL AND "started" > ? LIMIT 1',
          [job, tick, now - staleMs],
        );
        if (open) return 'running';
        const { changes } = await tx.run(
          'INSERT INTO "_cronRuns" ("job", "tick", "node", "started") VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
          [job, tick, node, now],
        );
        if (changes === 0) return 'taken';
        await tx.run('DELETE FROM "_cronRuns" WHERE "job" = ? AND "tick" < ?', [job, tick - KEEP_CLAIMS_MS]);
        return 'run';
      }),
    finish: async (job, tick, now) => {
      await store.write((tx) => tx.run('UPDATE "_cronRuns" SET "finished" = ? WHERE "job" = ? AND "tick" = ? AND "node" = ?', [now, job, tick, node]));
    },
    release: async (now) => {
      await store.write((tx) => tx.run('UPDATE "_cronRuns" SET "finished" = ? WHERE "node" = ? AND "finished" IS NULL', [now, node]));
    },
  };
}
