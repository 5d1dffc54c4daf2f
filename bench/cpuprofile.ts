// Reads a V8 .cpuprofile (node --cpu-prof) and sums self and total time per function, so a profile
// can be read in a terminal: `npx tsx bench/profile.ts <case>` prints the top entries.
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  selfMs: number;
  totalMs: number;
}

function shortUrl(url: string): string {
  const m = /\/(server|node_modules|bench)\/(.*)$/.exec(url);
  if (m) return `${m[1]}/${m[2]}`;
  return url.replace(/^node:/, '');
}

const label = (n: ProfileNode): string =>
  `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

/** Self time per node, then per function; total time counts a function once per stack (recursion). */
export async function summarize(file: string): Promise<{ totalMs: number; functions: FunctionCost[] }> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    all += us;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id, depth = 0; cur !== undefined && depth < 500; cur = parent.get(cur), depth++) {
      const n = byId.get(cur);
      if (!n) break;
      const key = label(n);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  }
  const functions = [...total.keys()].map((name) => ({ name, selfMs: (self.get(name) ?? 0) / 1000, totalMs: (total.get(name) ?? 0) / 1000 }));
  return { totalMs: all / 1000, functions };
}

/** Where a function's self time belongs, by its source. */
export function category(name: string): string {
  if (name.startsWith('(idle)')) return 'idle';
  if (name.startsWith('(garbage collector)')) return 'garbage collector';
  if (/^(writev|writeBuffer|writeUtf8String|writeLatin1String) /.test(name)) return 'socket writes (syscalls)';
  if (/sql-wasm|wasm-function|wasm-to-js|js-to-wasm|JSToWasm/.test(name)) return 'sql.js (SQLite in wasm + its JS glue)';
  if (/ server\//.test(name)) return 'Deskbase (server/)';
  if (/node_modules\/(h3|srvx|rou3|cookie-es)\//.test(name)) return 'h3 + srvx';
  if (/undici/.test(name)) return 'undici (web Headers, Response)';
  if (/ (_http_|internal\/|net:|events:|buffer:|node:|stream)/.test(name) || / :0$/.test(name)) return 'Node (http, streams, natives)';
  return 'other';
}

/** Self time per category, largest first, idle apart. */
export function byCategory(functions: FunctionCost[]): { name: string; ms: number }[] {
  const sums = new Map<string, number>();
  for (const f of functions) sums.set(category(f.name), (sums.get(category(f.name)) ?? 0) + f.selfMs);
  return [...sums].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

/** Prints a CPU profile's functions by self and by total time, the `top` costliest of each (the parts scripts' --prof). */
export async function printFunctions(file: string, top: number): Promise<void> {
  const { totalMs, functions } = await summarize(file);
  for (const key of ['selfMs', 'totalMs'] as const) {
    console.log(`\n${key === 'selfMs' ? 'self' : 'total'} time by function (of ${totalMs.toFixed(0)} ms)`);
    for (const f of [...functions].sort((a, b) => b[key] - a[key]).slice(0, top)) console.log(`${f[key].toFixed(0).padStart(8)} ms  ${f.name}`);
  }
}
