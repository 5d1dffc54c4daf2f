// `npm test`'s first step: ESLint and `tsc --noEmit` side by side (each is one busy thread, so on two
// cores together they take about as long as the slower alone), each one's output printed whole once it
// ends; fails when either fails. Usage: node scripts/checks.mjs
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

const codes = await Promise.all([run('lint'), run('typecheck')]);
process.exit(codes.every((c) => c === 0) ? 0 : 1);
