// npm start [-- --dir DIR --http HOST:PORT]: the desktop app when Electron can start here, otherwise the
// same server headless with its Admin UI for a browser, so the command always does something useful.
// The CLI options apply to the headless server; the desktop app keeps its data in its userData folder.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildAll, buildRenderer, rendererBuilt, ROOT } from './build.mjs';
import { electronAvailability, failedAtLaunch, headlessNotice, nodeProbe } from './start-lib.mjs';

const DIST = join(ROOT, 'dist');

/** `npm install && npm start` must show a working UI: build it once when missing. */
async function ensureRenderer() {
  if (rendererBuilt(DIST) || process.env.DESKBASE_SKIP_UI_BUILD === '1') return;
  console.log('Building the Admin UI (first start)...');
  try {
    await buildRenderer(ROOT, DIST);
  } catch (err) {
    console.error(`The Admin UI could not be built (${err instanceof Error ? err.message : String(err)}); the API still works.`);
  }
}

async function serveHeadless(args) {
  await ensureRenderer();
  // The server from its TypeScript sources: a checkout needs no build step for it.
  const { tsImport } = await import('tsx/esm/api');
  const cli = await tsImport('../server/cli.ts', import.meta.url);
  await cli.main(args);
}

function runElectron(binary, args) {
  const started = Date.now();
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would make Electron a plain Node and ignore our app
  const child = spawn(binary, [ROOT, ...args], { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => fallBack(`Electron could not be launched (${err.message})`, args));
  child.on('exit', (code, signal) => {
    if (failedAtLaunch(code, Date.now() - started)) fallBack(`Electron exited with code ${code} right after launch`, args);
    else process.exit(code ?? (signal ? 1 : 0));
  });
}

let fellBack = false;
function fallBack(reason, args) {
  if (fellBack) return;
  fellBack = true;
  console.log(headlessNotice(reason));
  serveHeadless(args).catch(fail);
}

function fail(err) {
  console.error(`Deskbase could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

/** Electron 45 fetches its binary on first use (about 100 MB, once); DESKBASE_NO_DOWNLOAD=1 skips that. */
function availabilityAfterDownload() {
  const first = electronAvailability(process.env, nodeProbe(ROOT));
  if (first.ok || !first.downloadable || process.env.DESKBASE_NO_DOWNLOAD === '1') return first;
  console.log(`${first.reason.charAt(0).toUpperCase()}${first.reason.slice(1)}: downloading it now (once, about 100 MB)...`);
  const download = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron', 'install.js')], { stdio: 'inherit' });
  const second = electronAvailability(process.env, nodeProbe(ROOT));
  if (second.ok || download.status === 0) return second;
  return { ok: false, reason: `${first.reason}, and downloading it failed`, downloadable: false };
}

const args = process.argv.slice(2);
const availability = availabilityAfterDownload();
if (availability.ok) {
  // The bundles take a fraction of a second with esbuild: always fresh. The UI is built when missing.
  await buildAll({ root: ROOT, outDir: DIST, renderer: 'if-missing' }).catch(fail);
  runElectron(availability.binary, args);
} else {
  fallBack(availability.reason, args);
}
