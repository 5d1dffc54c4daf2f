// Pinning the realtime section's processes to cores (taskset, util-linux): the server on a core of its
// own, the subscriber process and the load generator on the others, in the attached and the detached
// slices alike. The subscribers stand in for other machines (phones, browsers on the LAN): on a shared
// 2-core machine, unpinned, their reading competes with the server for the same cores and the figures
// measure the machine as much as the server. Where taskset or a second core is missing the processes
// run unpinned and the section says so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Pinning {
  /** The server's cores and everyone else's, as taskset's lists ("0", "1-3"). */
  server: string;
  others: string;
  /** What the runner's own process was allowed before, restored by `unpin`. */
  before: string;
  /** One line for the report: how the processes ran. */
  note: string;
}

/** The cores this process may run on (Linux), from /proc/self/status. */
function allowedCpus(): number[] | null {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (!m) return null;
    const cpus: number[] = [];
    for (const part of m[1].split(',')) {
      const [a, b] = part.split('-').map(Number);
      for (let c = a; c <= (b ?? a); c++) cpus.push(c);
    }
    return cpus;
  } catch {
    return null;
  }
}

function taskset(args: string[]): boolean {
  const r = spawnSync('taskset', args, { stdio: 'ignore' });
  return r.error === undefined && r.status === 0;
}

/** The plan, or why there is none (`note` of an unpinned run). */
export function planPinning(): Pinning | { note: string } {
  const cpus = allowedCpus();
  if (cpus === null || cpus.length < 2) return { note: 'processes unpinned: fewer than two cores to split (or not Linux)' };
  if (!taskset(['-p', String(process.pid)])) return { note: 'processes unpinned: taskset (util-linux) not found' };
  const server = String(cpus[0]);
  const others = cpus.slice(1).join(',');
  return { server, others, before: cpus.join(','), note: `server pinned to CPU ${server}; subscriber process and load generator to CPU ${others} (taskset)` };
}

/** Every thread of `pid` (and those it starts later) to `cpus`; false when taskset refused. */
export function pin(pid: number, cpus: string): boolean {
  return taskset(['-a', '-p', '-c', cpus, String(pid)]);
}
