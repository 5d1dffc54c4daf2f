// `npm test`: the type check and ESLint (`npm run check`: both on one TypeScript program, one busy
// thread), its output printed whole once it ends, and the command after `--` (the suite: `vitest run`)
// beside it from the start, its output as it comes; fails when either fails. The checks alone kept the
// machine busy for a minute and a half before the suite started; now the suite's files take what they
// leave. Usage: node scripts/checks.mjs [-- command args...]
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>`; resolves with its exit code once its output is printed. */
function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => {
      out.push(Buffer.from(`${err.message}\n`));
      finish(1);
    });
    child.on('close', (code) => finish(code ?? 1));
    let done = false;
    function finish(code) {
      if (done) return;
      done = true;
      const text = Buffer.concat(out).toString();
      process.stdout.write(`> npm run ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      if (text.trim()) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      resolve(code);
    }
  });
}

/** Runs `command` with this process's output; resolves with its exit code. */
function runInherited([command, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', (err) => {
      process.stderr.write(`${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const dash = process.argv.indexOf('--');
const suite = dash === -1 ? [] : process.argv.slice(dash + 1);
const codes = await Promise.all([run('check'), ...(suite.length ? [runInherited(suite)] : [])]);
process.exit(codes.every((c) => c === 0) ? 0 : 1);
