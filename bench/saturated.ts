// The bench's saturated section (issue 28, "budgets that count work, not time"): the main data set's
// read cases with 10 connections, first on the machine as it is, then while every core is held by busy
// processes (bench/busy.ts). A budget measured in wall-clock time refuses good requests here (a list
// descheduled past its time is answered 400); one that counts work answers every one the same. Every
// answer is computed (cases.ts `computed`): one kept between requests would do no work to refuse.
import type { CaseId, HttpCase } from './cases.js';
import { saturateCores } from './busy.js';
import { figures, type LoadResult } from './load.js';
import { fmtResult, load, type Settings } from './phases.js';

/** The read cases run saturated (each computed: cases.ts): the two of the target, and the heaviest good request of the bench. */
export const SATURATED_CASES = ['viewComputed', 'listComputed', 'listFilter'] as const satisfies readonly CaseId[];

export interface SaturatedFigure {
  label: string;
  idle: LoadResult;
  saturated: LoadResult;
}

/** No busy process outlives this, whatever happens to the bench. */
const BUSY_MS = 120_000;

export async function runSaturated(s: Settings, url: string, cases: Record<CaseId, HttpCase>): Promise<SaturatedFigure[]> {
  const idle = [];
  for (const id of SATURATED_CASES) idle.push(figures(await load(s, url, cases[id])));
  const busy = await saturateCores(BUSY_MS);
  const out: SaturatedFigure[] = [];
  try {
    for (const [i, id] of SATURATED_CASES.entries()) {
      const saturated = figures(await load(s, url, cases[id]));
      out.push({ label: cases[id].label, idle: idle[i], saturated });
      s.log(`${cases[id].label}: idle ${fmtResult(idle[i])} | cores saturated ${fmtResult(saturated)}`);
    }
  } finally {
    busy.stop();
  }
  return out;
}

/** Answers that were not a 2xx (refused, failed or never answered). */
export const refusedOf = (r: LoadResult): number => r.non2xx + r.errors;
