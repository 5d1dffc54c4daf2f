// The bench's output: one table (Deskbase beside the ceiling, then scale figures) and the targets of
// the issue, each with its measured value and whether it is met.
import { deepPage } from './cases.js';
import type { LoadResult } from './load.js';
import type { MainResults, Measured } from './phases.js';
import type { LargeFigures, ScalePoint } from './scale.js';
import type { ImportFigures } from './import.js';
import { REALTIME_TARGETS, type RealtimeFigures } from './realtime.js';
import type { TeamFigures } from './team.js';
import type { HooksFigures } from './hooks.js';
import { refusedOf } from './saturated.js';
import { STRETCH_TARGET_MS, type StretchFigure } from './stretch.js';
import { median, UI_TARGET_MS, type UiFigures } from './ui.js';

export interface BenchResults extends MainResults {
  small: ScalePoint;
  large: LargeFigures;
  recordsImport: ImportFigures;
  realtime: RealtimeFigures;
  team: TeamFigures;
  hooks: HooksFigures;
  stretch: StretchFigure[];
  ui: UiFigures;
}

export interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean;
}
const MB = 2 ** 20;
const num = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const pct = (n: number): string => `${num(100 * n)}%`;

export function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? ':' : '-').padEnd(w + 1, '-') + (i === 0 ? '-' : ':')).join('|')}|`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)];
}

const cells = (r: LoadResult): string[] => [num(r.rps), num(r.p50, 2), num(r.p99, 2)];
const withCpu = (r: Measured): string[] => [...cells(r), num(r.cpuUsPerRequest)];

export function mainTable(results: BenchResults): string[] {
  const posts = results.cases.view.posts.toLocaleString('en');
  const header = [
    `case (${posts} posts, 10 connections)`, 'Deskbase req/s', 'p50 ms', 'p99 ms', 'CPU µs/req',
    'ceiling req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'Deskbase / ceiling',
  ];
  const rows = Object.values(results.cases).map((c) => [c.label, ...withCpu(c.deskbase), ...withCpu(c.ceiling), pct(c.ratio)]);
  // the floor in the Deskbase columns: a bare server computing the same answers (bench/floor.ts)
  for (const c of Object.values(results.floor)) rows.push([c.label, ...withCpu(c.deskbase), ...withCpu(c.ceiling), pct(c.ratio)]);
  const u = results.signInUnderLoad;
  rows.push([`view while sign-ins run (${num(u.signIn.rps, 1)} sign-ins/s)`, ...cells(u.view), '', '', '', '', '', `p99 ${num(u.factor, 2)}x idle (${num(u.idleViewP99, 2)} ms)`]);
  const e = results.expandCost;
  rows.push(['list 30 with totals, alternating with the next', ...withCpu(e.list), '', '', '', '', '']);
  rows.push(['same list, expand=author', ...withCpu(e.expand), '', '', '', '', `${pct(e.ratio)} of the list's rate`]);
  return table([header, ...rows]);
}

/** The read cases idle and with every core held by busy processes (bench/saturated.ts). */
export function saturatedTable(results: BenchResults): string[] {
  const rows = results.saturated.map((f) => [
    f.label, ...cells(f.idle), String(refusedOf(f.idle)), ...cells(f.saturated), String(refusedOf(f.saturated)),
  ]);
  return table([
    ['case, cores saturated by busy processes (10 connections)', 'idle req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'saturated req/s', 'p50 ms', 'p99 ms', 'non-2xx (target 0)'],
    ...rows,
  ]);
}

export function scaleTable(results: BenchResults): string[] {
  const { small, large } = results;
  const row = (label: string, a: LoadResult, b: LoadResult, fmt: (r: LoadResult) => string) => [label, fmt(a), fmt(b), pct(b.rps / a.rps)];
  const lat = (r: LoadResult) => `p50 ${num(r.p50, 2)} / p99 ${num(r.p99, 2)} ms`;
  const rate = (r: LoadResult) => `${num(r.rps)}/s`;
  return table([
    ['scale', `${small.posts.toLocaleString('en')} posts`, `${large.posts.toLocaleString('en')} posts`, 'large / small rate'],
    row('create (durable, 10 connections) rate', small.create, large.create, rate),
    row('create latency', small.create, large.create, lat),
    ['journal entries per fdatasync (group commit)', num(small.entriesPerSync, 1), num(large.entriesPerSync, 1), ''],
    row('list 30 with totals (1 connection)', small.list, large.list, lat),
    row('list 30, unindexed ~ filter (1 connection)', small.listFilter, large.listFilter, lat),
    row('list 30, sort=title, unindexed (1 connection)', small.listSortTitle, large.listSortTitle, lat),
    row(`list 30, page ${deepPage(small.posts)} / ${deepPage(large.posts).toLocaleString('en')} (1 connection)`, small.listDeepPage, large.listDeepPage, lat),
    ['start-up (startServer / process spawn to ready)', '', `${num(large.start.startMs)} ms / ${num(large.spawnToReadyMs)} ms`, ''],
    ['RSS after start / after load', '', `${num(large.start.rssBytes / MB)} MB / ${num(large.memoryAfterLoad.rssBytes / MB)} MB`, ''],
    ['checkpoint', '', `${num(large.checkpointMs)} ms`, ''],
  ]);
}

/**
 * The realtime floor beside the create-rate target (bench/realtime-floor.ts): what a bare server's
 * writes alone take of the server's core at the targets' rates, and Deskbase's and the floor's CPU per
 * round at this run's.
 */
function realtimeFloorNote(rt: BenchResults['realtime']): string {
  if (rt.floor === null || rt.server === null) return '';
  const f = rt.floor;
  const ms = (us: number) => (us / 1000).toFixed(1);
  return ` (per round, user + system (the loop's thread): Deskbase ${ms(rt.server.roundUserUs)} + ${ms(rt.server.roundSystemUs)} ms (${ms(rt.server.roundThreadUs)}), the floor ${ms(f.measured.roundUserUs)} + ${ms(f.measured.roundSystemUs)} ms (${ms(f.measured.roundThreadUs)}); the floor's writes alone at the targets' rates: ${pct(f.target.cpuShare)} of a core)`;
}

export function targets(r: BenchResults): Target[] {
  const t = (name: string, goal: string, measured: string, met: boolean): Target => ({ name, goal, measured, met });
  const createRatio = r.large.create.rps / r.small.create.rps;
  const large = `${Math.round(r.large.posts / 1000)}k`;
  const small = `${Math.round(r.small.posts / 1000)}k`;
  const rssMax = Math.max(r.large.start.rssBytes, r.large.memoryAfterLoad.rssBytes);
  const expandRatio = r.expandCost.ratio;
  const rt = r.realtime;
  const rtShare = rt.attached.rps / rt.detached.rps;
  const refused = r.saturated.reduce((n, f) => n + refusedOf(f.saturated), 0);
  const answered = r.saturated.reduce((n, f) => n + f.saturated.ok, 0);
  const longest = r.stretch.reduce<StretchFigure | null>((a, f) => (a === null || f.healthMaxMs > a.healthMaxMs ? f : a), null);
  // the server's own cost, apart from what the subscriber process takes of the shared cores
  const rtCpu = rt.cpu.detached.serverUsPerCreate / rt.cpu.attached.serverUsPerCreate;
  return [
    t('read cases with every core saturated', '0 non-2xx', `${refused} of ${answered + refused}`, refused === 0 && answered > 0),
    t('view by id vs ceiling, answers kept', '>= 60%', pct(r.cases.view.ratio), r.cases.view.ratio >= 0.6),
    t('view by id vs ceiling, every answer computed', '>= 60%', `${pct(r.cases.viewComputed.ratio)} (floor ${pct(r.floor.viewComputed.ratio)})`, r.cases.viewComputed.ratio >= 0.6),
    t('list 30 with totals vs ceiling, answers kept', '>= 35%', pct(r.cases.list.ratio), r.cases.list.ratio >= 0.35),
    t('list 30 with totals vs ceiling, every answer computed', '>= 35%', `${pct(r.cases.listComputed.ratio)} (floor ${pct(r.floor.listComputed.ratio)})`, r.cases.listComputed.ratio >= 0.35),
    t('durable creates', '>= 3000/s', `${num(r.cases.create.deskbase.rps)}/s`, r.cases.create.deskbase.rps >= 3000),
    t(`create rate at ${large} vs ${small}`, '>= 80%', pct(createRatio), createRatio >= 0.8),
    t('sign-ins', '>= 25/s', `${num(r.cases.signIn.deskbase.rps, 1)}/s`, r.cases.signIn.deskbase.rps >= 25),
    t('view p99 while sign-ins run', '<= 3x idle p99', `${num(r.signInUnderLoad.factor, 2)}x`, r.signInUnderLoad.factor <= 3),
    t(`start-up at ${large} (startServer)`, '< 2000 ms', `${num(r.large.start.startMs)} ms`, r.large.start.startMs < 2000),
    t(`RSS at ${large}`, '< 400 MB', `${num(rssMax / MB)} MB`, rssMax < 400 * MB),
    t(`unindexed ~ filter p50 at ${large}`, '<= 30 ms', `${num(r.large.listFilter.p50, 1)} ms`, r.large.listFilter.p50 <= 30),
    t(`default-sorted list 30 p50 at ${large}`, '<= 2 ms', `${num(r.large.list.p50, 2)} ms`, r.large.list.p50 <= 2),
    t(`page ${deepPage(r.large.posts).toLocaleString('en')} p50 at ${large}`, '<= 10 ms', `${num(r.large.listDeepPage.p50, 2)} ms`, r.large.listDeepPage.p50 <= 10),
    t(`sort on unindexed text p50 at ${large}`, '<= 40 ms', `${num(r.large.listSortTitle.p50, 1)} ms`, r.large.listSortTitle.p50 <= 40),
    t('list 30 expand=author vs without', '>= 60%', pct(expandRatio), expandRatio >= 0.6),
    t(`create rate with ${rt.subscribers.toLocaleString('en')} subscribers vs none`, `>= ${pct(REALTIME_TARGETS.createShare)}`, `${pct(rtShare)}${realtimeFloorNote(rt)}`, rtShare >= REALTIME_TARGETS.createShare),
    t(`server CPU per create, none vs ${rt.subscribers.toLocaleString('en')} subscribers`, `>= ${pct(REALTIME_TARGETS.createShare)}`, pct(rtCpu), rtCpu >= REALTIME_TARGETS.createShare),
    t(`delivery to the last of ${rt.subscribers.toLocaleString('en')}, p99`, `<= ${REALTIME_TARGETS.deliveryP99Ms} ms`, `${num(rt.deliveryP99, 1)} ms`, rt.deliveryP99 <= REALTIME_TARGETS.deliveryP99Ms),
    t(`delivery to the last of ${rt.subscribers.toLocaleString('en')} while creating, p99`, `<= ${REALTIME_TARGETS.deliveryP99Ms} ms`, `${num(rt.loaded.p99, 1)} ms`, rt.loaded.p99 <= REALTIME_TARGETS.deliveryP99Ms),
    ...(rt.server === null ? [] : [t(`delivery to the last of ${rt.subscribers.toLocaleString('en')} while creating, p99, on the server's side (its write done)`, `<= ${REALTIME_TARGETS.deliveryP99Ms} ms`, `${num(rt.server.delivered.p99, 1)} ms`, rt.server.delivered.p99 <= REALTIME_TARGETS.deliveryP99Ms)]),
    t(
      'longest health answer during a long operation',
      `<= ${STRETCH_TARGET_MS} ms`,
      longest === null ? '-' : `${num(longest.healthMaxMs)} ms (${longest.operation})`,
      longest !== null && r.stretch.every((f) => f.status >= 200 && f.status < 300 && f.healthMaxMs <= STRETCH_TARGET_MS),
    ),
    t('records import rate', '>= 9000 rows/s', `${num(r.recordsImport.rowsPerSecond)} rows/s`, r.recordsImport.rowsPerSecond >= 9000),
    ...([['admin UI: sign-in to the first rows, median', r.ui.signInMs], ['admin UI: a 5,000-record collection opened, median', r.ui.openBigMs]] as const).map(([name, ms]) =>
      r.ui.skipped === null
        ? t(name, `< ${UI_TARGET_MS} ms`, `${num(median(ms))} ms`, median(ms) < UI_TARGET_MS)
        : t(name, `< ${UI_TARGET_MS} ms`, 'not measured (no Chromium)', false)),
  ];
}

export function targetTable(list: Target[]): string[] {
  return table([['target', 'goal', 'measured', 'met'], ...list.map((x) => [x.name, x.goal, x.measured, x.met ? 'yes' : 'NO'])]);
}
