// Busy processes that hold every core of the machine: the bench's saturated section and
// test/security/saturated.test.ts load the cores with them to show that a budget counts work, not time.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Busy {
  /** The busy processes' ids (their share of the CPU can be read from /proc/<pid>/schedstat). */
  readonly pids: number[];
  /** Kills every busy process (they also end by themselves after `maxMs`). */
  stop(): void;
}

/**
 * `perCore` processes per core spinning until stopped or `maxMs` passed: with four per core the server
 * gets about a fifth of a core. Resolves once they have had a moment to start spinning.
 */
export async function saturateCores(maxMs: number, perCore = 4): Promise<Busy> {
  const busy: ChildProcess[] = [];
  for (let i = 0; i < perCore * availableParallelism(); i++) {
    busy.push(spawn(process.execPath, ['-e', `const end = Date.now() + ${maxMs}; while (Date.now() < end);`], { stdio: 'ignore' }));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    pids: busy.map((p) => p.pid ?? -1),
    stop() {
      for (const p of busy) if (p.exitCode === null) p.kill('SIGKILL');
    },
  };
}
