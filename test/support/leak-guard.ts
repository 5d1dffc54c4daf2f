// Set up before every file of the projects that run file after file in one process (vitest.config.ts,
// `isolate: false`): a file that leaves a server listening fails, naming it. What a file leaves open
// lives on under the files after it, in the same process: its timers run, its pools hold connections,
// what it keeps alive lengthens every garbage collection after it.
import { afterAll, beforeAll } from 'vitest';

const listening = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

let before = 0;
beforeAll(() => {
  before = listening();
});

afterAll(async () => {
  // a server's close hands its handle back on a later turn of the loop
  for (let i = 0; i < 40 && listening() > before; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  const left = listening() - before;
  if (left > 0) throw new Error(`this file left ${left} server${left > 1 ? 's' : ''} listening: close what it starts (the files after it run in this process)`);
});
