// npm run build: the Admin UI (Vite) and three esbuild bundles, all under dist/ (or --out DIR):
//   renderer/            the Admin UI, served by the server at /_/
//   main/index.cjs       Electron main process with the server inside (CJS, electron external), main/preload.cjs,
//                        main/icon.png, main/trayTemplate(@2x).png, main/sql-wasm.wasm
//   server/index.mjs     startServer, ESM for plain Node; server/cli.mjs imports it; server/sql-wasm.wasm beside them
//   node_modules/        sharp (thumbnails) and what it loads: a native module cannot be bundled, so it is
//                        external in both bundles and copied here with this OS's prebuilt binaries
// Usage: node scripts/build.mjs [--out DIR] [--no-renderer] [--targets OS-ARCH,...] (default: this machine's)
import { copyFile, cp, mkdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

// sql.js (Emscripten, CommonJS) looks for sql-wasm.wasm in `__dirname` and loads fs with `require`:
// an ESM bundle has neither, so both are defined from import.meta.url, and the wasm is copied beside
// each bundle that contains sql.js.
const ESM_NODE_BANNER = [
  "import { createRequire as __deskbaseCreateRequire } from 'node:module';",
  "import { dirname as __deskbaseDirname } from 'node:path';",
  "import { fileURLToPath as __deskbaseFileURLToPath } from 'node:url';",
  'const require = __deskbaseCreateRequire(import.meta.url);',
  'const __filename = __deskbaseFileURLToPath(import.meta.url);',
  'const __dirname = __deskbaseDirname(__filename);',
].join('\n');

/**
 * listhen's optional features we never turn on (file watching, tunnels, clipboard, websockets, config
 * files) are imported lazily; each becomes a stub that says so, and the bundle needs no node_modules.
 */
const UNUSED_OPTIONAL = /^(@parcel\/watcher(-wasm)?|untun|tinyclip|crossws(\/.*)?|jiti)$/;
const unusedOptional = {
  name: 'deskbase-unused-optional',
  setup(build) {
    build.onResolve({ filter: UNUSED_OPTIONAL }, (args) => ({ path: args.path, namespace: 'unused-optional' }));
    build.onLoad({ filter: /.*/, namespace: 'unused-optional' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not included in the Deskbase server bundle`)});`,
      loader: 'js',
    }));
  },
};

const SQL_WASM = 'node_modules/sql.js/dist/sql-wasm.wasm';
// bcryptjs runs on the password worker thread, which loads it from a file: copied beside each bundle
const BCRYPTJS = 'node_modules/bcryptjs/umd/index.js';

/** Packages loaded at run time from dist/node_modules instead of being bundled (native code). */
const RUNTIME_PACKAGES = ['sharp'];

const common = { bundle: true, platform: 'node', logLevel: 'warning', legalComments: 'none', sourcemap: false, external: RUNTIME_PACKAGES };

/** This machine as a build target: `linux-x64`, `darwin-arm64`, `win32-x64`... */
export const HOST_TARGET = `${process.platform}-${process.arch}`;

/**
 * Copies the runtime packages and their dependencies. Optional dependencies are native binaries per OS
 * and architecture (sharp's `@img/sharp-<os>-<arch>` and its libvips): only those of the targets are
 * copied, and each must be installed here. A package built for macOS on x64 and arm64 at once carries both
 * (sharp picks its own at run time), so one electron-builder run writes one latest-mac.yml for the updater.
 */
export async function copyRuntimePackages(root, outDir, targets = [HOST_TARGET]) {
  const done = new Set();
  const wanted = (name) => targets.some((t) => name === `@img/sharp-${t}` || name === `@img/sharp-libvips-${t}`);
  const copy = async (name, optional) => {
    if (done.has(name)) return;
    if (optional && !wanted(name)) return; // another OS's or architecture's binaries
    const from = join(root, 'node_modules', name);
    if (!existsSync(join(from, 'package.json'))) {
      if (!optional) throw new Error(`${name} is not installed`);
      return;
    }
    done.add(name);
    await cp(from, join(outDir, 'node_modules', name), { recursive: true, dereference: true });
    const pkg = JSON.parse(await readFile(join(from, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) await copy(dep, false);
    for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
      await copy(dep, true);
      if (wanted(dep) && !done.has(dep)) missing.push(`${dep}@${version}`);
    }
  };
  const missing = [];
  await rm(join(outDir, 'node_modules'), { recursive: true, force: true });
  for (const name of RUNTIME_PACKAGES) await copy(name, false);
  if (missing.length > 0) {
    throw new Error(
      `the native binaries for ${targets.join(', ')} are not installed: ${missing.join(', ')}. ` +
        `Install them beside this OS's (npm refuses another OS's packages without --force): npm install --no-save --force ${missing.join(' ')}`,
    );
  }
}

/** cli.ts imports './index.js': the CLI bundle keeps that import, pointed at the sibling index.mjs. */
const serverIndexExternal = {
  name: 'deskbase-server-index',
  setup(build) {
    build.onResolve({ filter: /^\.\/index\.js$/ }, (args) =>
      args.importer.endsWith(join('server', 'cli.ts')) ? { path: './index.mjs', external: true } : undefined,
    );
  },
};

export async function buildServer(root, outDir) {
  const options = { ...common, format: 'esm', target: 'node20', banner: { js: ESM_NODE_BANNER } };
  await esbuild.build({ ...options, entryPoints: [join(root, 'server/index.ts')], outfile: join(outDir, 'server/index.mjs'), plugins: [unusedOptional] });
  await esbuild.build({
    ...options, entryPoints: [join(root, 'server/cli.ts')], outfile: join(outDir, 'server/cli.mjs'), plugins: [serverIndexExternal],
  });
  await copyFile(join(root, SQL_WASM), join(outDir, 'server/sql-wasm.wasm'));
  await copyFile(join(root, BCRYPTJS), join(outDir, 'server/bcryptjs.cjs'));
  await buildHooksWorker(root, join(outDir, 'server'));
}

/**
 * The hooks worker (server/hooks/worker/main.cjs, plain CommonJS) bundled beside each bundle that holds
 * the server, as `worker/main.cjs`: server/hooks/runtime.ts looks for it there first.
 */
async function buildHooksWorker(root, bundleDir) {
  await esbuild.build({ ...common, format: 'cjs', target: 'node20', entryPoints: [join(root, 'server/hooks/worker/main.cjs')], outfile: join(bundleDir, 'worker/main.cjs') });
}

// In the CommonJS main bundle, the server's import.meta.url (where it looks for the UI by default)
// becomes the bundle's own file URL.
const CJS_IMPORT_META_BANNER = "const __deskbaseImportMetaUrl = require('node:url').pathToFileURL(__filename).href;";

export async function buildMain(root, outDir) {
  // Electron 45 runs Node 22 and Chromium 140.
  const options = { ...common, format: 'cjs', target: 'node22', external: ['electron', ...RUNTIME_PACKAGES] };
  await esbuild.build({
    ...options,
    entryPoints: [join(root, 'main/index.ts')],
    outfile: join(outDir, 'main/index.cjs'),
    banner: { js: CJS_IMPORT_META_BANNER },
    define: { 'import.meta.url': '__deskbaseImportMetaUrl' },
    plugins: [unusedOptional],
  });
  await esbuild.build({ ...options, entryPoints: [join(root, 'main/preload.cts')], outfile: join(outDir, 'main/preload.cjs') });
  await copyFile(join(root, 'build/icon.png'), join(outDir, 'main/icon.png'));
  // The macOS menu bar's template image, @2x for Retina (main/tray.ts).
  await copyFile(join(root, 'build/trayTemplate.png'), join(outDir, 'main/trayTemplate.png'));
  await copyFile(join(root, 'build/trayTemplate@2x.png'), join(outDir, 'main/trayTemplate@2x.png'));
  await copyFile(join(root, SQL_WASM), join(outDir, 'main/sql-wasm.wasm'));
  await copyFile(join(root, BCRYPTJS), join(outDir, 'main/bcryptjs.cjs'));
  await buildHooksWorker(root, join(outDir, 'main'));
}

export async function buildRenderer(root, outDir) {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir: join(outDir, 'renderer'), emptyOutDir: true } });
}

export function rendererBuilt(outDir) {
  return existsSync(join(outDir, 'renderer', 'index.html'));
}

/** renderer: 'always' | 'if-missing' | 'never'; targets: the OS-architecture pairs whose native binaries to ship. */
export async function buildAll({ root = ROOT, outDir = join(ROOT, 'dist'), renderer = 'always', targets = [HOST_TARGET] } = {}) {
  await rm(join(outDir, 'main'), { recursive: true, force: true });
  await rm(join(outDir, 'server'), { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await Promise.all([buildServer(root, outDir), buildMain(root, outDir), copyRuntimePackages(root, outDir, targets)]);
  if (renderer === 'always' || (renderer === 'if-missing' && !rendererBuilt(outDir))) await buildRenderer(root, outDir);
}

const USAGE = 'usage: node scripts/build.mjs [--out DIR] [--no-renderer] [--targets darwin-x64,darwin-arm64]';

function parseArgs(argv) {
  const options = { outDir: join(ROOT, 'dist'), renderer: 'always', targets: [HOST_TARGET] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') options.outDir = resolve(argv[++i] ?? '');
    else if (argv[i] === '--no-renderer') options.renderer = 'never';
    else if (argv[i] === '--targets') {
      options.targets = (argv[++i] ?? '').split(',').filter(Boolean);
      const bad = options.targets.find((t) => !/^(darwin|linux|win32)-(x64|arm64)$/.test(t));
      if (bad !== undefined || options.targets.length === 0) throw new Error(`--targets takes OS-arch pairs such as darwin-arm64, linux-x64, win32-x64 (${USAGE})`);
    } else throw new Error(`unknown option ${argv[i]} (${USAGE})`);
  }
  return options;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const options = parseArgs(process.argv.slice(2));
    const started = Date.now();
    await buildAll(options);
    console.log(`Built into ${options.outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } catch (err) {
    console.error(`Build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
