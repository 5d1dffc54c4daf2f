// The runner's side of the child processes: fork bench/child.ts under tsx and call it over IPC, each
// call bounded in time. `BENCH_CPU_PROF=<folder>` runs the children under `node --cpu-prof`. And the
// end of a run (`tearDown`): what it started stopped or closed, its temporary folders removed.
import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest, SubscribersRequest } from './protocol.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'child.ts');

export interface Child {
  readonly pid: number;
  call<T>(request: ChildRequest | SubscribersRequest, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

/** `script` is another copy of bench/child.ts (say, of an older commit, to compare two versions). */
export function spawnChild(profileDir: string | null, script = CHILD): Child {
  const execArgv = ['--import', 'tsx'];
  if (profileDir !== null) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const proc: ChildProcess = fork(script, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let nextId = 1;
  let exited = false;
  proc.on('message', (reply: ChildReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    clearTimeout(p.timer);
    if (reply.ok) p.resolve(reply.result);
    else p.reject(new Error(`child: ${reply.error}`));
  });
  proc.on('exit', (code) => {
    exited = true;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`child process exited (code ${code})`));
    }
    pending.clear();
  });
  return {
    pid: proc.pid ?? -1,
    call<T>(request: ChildRequest | SubscribersRequest, timeoutMs = 120_000): Promise<T> {
      if (exited) return Promise.reject(new Error('child process has exited'));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`child call ${request.op} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        proc.send({ id, request });
      });
    },
    async stop(): Promise<void> {
      if (exited) return;
      const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      await this.call({ op: 'close' }, 30_000).catch(() => undefined);
      proc.disconnect();
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Stops `child` and forgets it (`children`: the ones a run still has to stop at its end). */
export async function stop(children: Set<Child>, child: Child): Promise<void> {
  await child.stop();
  children.delete(child);
}

/** What a run started and stops at its end: a child (`stop`), a server, a store, a cluster (`close` or `stop`). */
export type Started = { stop(): unknown } | { close(): unknown };

/**
 * The end of a run, whatever happened in it: each of `started` stopped or closed in turn (none of them
 * given: skipped), then `folders` removed; one that fails to stop keeps neither the others running nor
 * the folders. The first failure is thrown once all that is done.
 */
export async function tearDown(started: Iterable<Started | null | undefined>, ...folders: string[]): Promise<void> {
  const failures: unknown[] = [];
  for (const one of started) {
    if (one === null || one === undefined) continue;
    try {
      await ('stop' in one ? one.stop() : one.close());
    } catch (err) {
      failures.push(err);
    }
  }
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
  if (failures.length > 0) throw failures[0];
}
