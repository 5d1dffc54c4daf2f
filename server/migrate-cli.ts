// npm run migrate -- up | down [N] | create NAME | collections [--dir DIR | --db URL] [--migrations DIR] [--hooks DIR] [--yes]
// PocketBase's `migrate` command (plugins/migratecmd, core/migrations_runner.go) with its messages and
// file templates: `up` applies the files not applied yet, `down [N]` reverts the last N applied (1 by
// default, all for a negative N), `create NAME` writes a blank `<unix time>_<name>.js`, `collections`
// writes a snapshot of the current collections as one migration (`app.importCollections(snapshot,
// false)`). The desktop server must be stopped for `up`/`down` (the data folder's lock says so).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createCore } from './core/index.js';
import { exportSchema } from './core/transfer/schema-export.js';
import { terminalQuestion } from './import-pocketbase.js';
import { openStore, type Store } from './store/db.js';
import { openPostgresStore } from './store-postgres/store.js';
import { redactUrl } from './cli.js';
import { lastApplied, listMigrationFiles, migrateDown, migrateUp } from './hooks/migrations.js';
import { migrationHost } from './hooks/migrations-host.js';
import { createHooks, startHooks, type HooksRuntime } from './hooks/index.js';

const HELP = `Executes app DB migration scripts (PocketBase's pb_migrations).

Usage: npm run migrate -- <command> [--dir DIR | --db URL] [--migrations DIR] [--hooks DIR] [--yes]

Supported arguments are:
- up            - runs all available migrations
- down [number] - reverts the last [number] applied migrations
- create name   - creates new blank migration template file
- collections   - creates new migration file with snapshot of the local collections configuration

  --dir DIR         Deskbase data folder (default ./deskbase_data); stop the server using it first
  --db URL          a team server's PostgreSQL database instead (postgres://USER:PASSWORD@HOST:PORT/DB)
  --migrations DIR  the migrations folder (default pb_migrations beside the data folder)
  --hooks DIR       the hooks folder loaded while migrations run (default pb_hooks beside the data folder)
  --yes             revert without asking (down asks in a terminal, and needs --yes elsewhere)`;

/** PocketBase's `/// <reference ...>` line at the top of every JS template. */
const TYPES_DIRECTIVE = '/// <reference path="../pb_data/types.d.ts" />\n';

export const BLANK_TEMPLATE = `${TYPES_DIRECTIVE}migrate((app) => {
  // add up queries...
}, (app) => {
  // add down queries...
})
`;

export interface MigrateArgs {
  command: 'up' | 'down' | 'create' | 'collections';
  rest: string[];
  dir: string;
  db: string | null;
  migrations: string;
  hooks: string;
  yes: boolean;
}

export function parseMigrateArgs(argv: string[], cwd = process.cwd()): MigrateArgs | { help: string } | { error: string } {
  const positional: string[] = [];
  let dir = resolve(cwd, 'deskbase_data');
  let db: string | null = null;
  let migrations: string | null = null;
  let hooks: string | null = null;
  let yes = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--help' || flag === '-h') return { help: HELP };
    if (flag === '--yes' || flag === '-y') yes = true;
    else if (flag === '--dir' || flag === '--migrations' || flag === '--hooks') {
      const v = value();
      if (!v) return { error: `${flag} needs a folder` };
      if (flag === '--dir') dir = resolve(cwd, v);
      else if (flag === '--migrations') migrations = resolve(cwd, v);
      else hooks = resolve(cwd, v);
    } else if (flag === '--db') {
      const v = value();
      if (!v || !/^postgres(ql)?:\/\//.test(v)) return { error: '--db takes a PostgreSQL URL, for example postgres://USER:PASSWORD@HOST:5432/DB' };
      db = v;
    } else if (/^--?[a-z]/i.test(arg)) return { error: `unknown option ${arg}\n\n${HELP}` };
    else positional.push(arg);
  }
  const [command = '', ...rest] = positional;
  if (command === '') return { help: HELP };
  if (!['up', 'down', 'create', 'collections'].includes(command)) return { error: `unsupported command: ${JSON.stringify(command)}` };
  // PocketBase: pb_data/../pb_migrations (and pb_hooks); a team server without a folder: the working directory
  const base = db !== null && dir === resolve(cwd, 'deskbase_data') ? cwd : dirname(dir);
  return { command: command as MigrateArgs['command'], rest, dir, db, migrations: migrations ?? join(base, 'pb_migrations'), hooks: hooks ?? join(base, 'pb_hooks'), yes };
}

/** PocketBase's inflector.Snakecase: words of letters and digits, camelCase split, joined by `_`, lower case. */
export function snakecase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** JSON as Go's encoding/json writes a map: keys sorted at every level, no HTML escaping, `prefix` before each line but the first. */
function goJson(value: unknown, prefix: string, indent: string): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
    return v;
  };
  return JSON.stringify(sorted(value), null, indent).split('\n').join(`\n${prefix}`);
}

/** The snapshot template PocketBase's `migrate collections` writes (no created/updated, no OAuth2 providers). */
export function snapshotTemplate(collections: Record<string, unknown>[]): string {
  const data = collections.map((c) => {
    const { created: _c, updated: _u, ...rest } = c;
    if (rest.oauth2 !== null && typeof rest.oauth2 === 'object') {
      const { providers: _p, ...oauth2 } = rest.oauth2 as Record<string, unknown>;
      rest.oauth2 = oauth2;
    }
    return rest;
  });
  return `${TYPES_DIRECTIVE}migrate((app) => {
  const snapshot = ${goJson(data, '  ', '  ')};

  return app.importCollections(snapshot, false);
}, (app) => {
  return null;
})
`;
}

async function openTarget(args: MigrateArgs): Promise<Store> {
  return args.db !== null ? openPostgresStore({ url: args.db, dir: null }) : openStore({ dir: args.dir });
}

/** Writes a new migration file (PocketBase's migrateCreateHandler): asks first in a terminal. */
async function createFile(args: MigrateArgs, name: string | undefined, template: string, log: (line: string) => void, ask: ((q: string) => Promise<string>) | null): Promise<number> {
  if (!name) return console.error('Missing migration file name'), 1;
  const file = join(args.migrations, `${Math.floor(Date.now() / 1000)}_${snakecase(name)}.js`);
  if (ask !== null && !args.yes && !/^y(es)?$/i.test((await ask(`Do you really want to create migration ${JSON.stringify(file)}? [y/N] `)).trim())) {
    return log('The command has been cancelled'), 0;
  }
  await mkdir(args.migrations, { recursive: true });
  await writeFile(file, template, { flag: 'wx' });
  log(`Successfully created file ${JSON.stringify(file)}`);
  return 0;
}

/** Exit codes: 0 done (or cancelled), 1 failed, 2 usage. */
export async function runMigrate(argv: string[], log: (line: string) => void = console.log, ask = terminalQuestion()): Promise<number> {
  const args = parseMigrateArgs(argv);
  if ('help' in args) return log(args.help), 0;
  if ('error' in args) return console.error(args.error), 2;
  if (args.command === 'create') return createFile(args, args.rest[0], BLANK_TEMPLATE, log, ask);
  let store: Store;
  try {
    store = await openTarget(args);
  } catch (err) {
    return console.error(`Cannot open ${args.db !== null ? redactUrl(args.db) : args.dir}: ${err instanceof Error ? err.message : String(err)}`), 1;
  }
  let hooks: HooksRuntime | null = null;
  try {
    if (args.command === 'collections') {
      const core = await createCore(store);
      return await createFile(args, ['collections_snapshot', ...args.rest].join('_'), snapshotTemplate(exportSchema(core.registry.all(), null)), log, ask);
    }
    // the files run on a hooks worker, with the pb_hooks folder's hooks loaded as a server loads them
    hooks = createHooks({ dir: args.hooks, logger: (entry) => (entry.level === 'ERROR' || entry.level === 'WARN' ? console.error : log)(`${entry.level} ${entry.message}`) });
    const core = await createCore(store, { events: hooks });
    await startHooks(hooks, core, { dataDir: args.db !== null ? null : args.dir });
    const deps = { store, registry: core.registry, host: migrationHost(hooks) };
    const files = await listMigrationFiles(args.migrations);
    if (args.command === 'up') {
      const applied = await migrateUp(deps, files);
      if (applied.length === 0) log('No new migrations to apply.');
      for (const file of applied) log(`Applied ${file}`);
      return 0;
    }
    // down [N]: 1 by default, every applied one for a negative N (PocketBase's cast.ToInt: 0 for a non-number)
    const n = args.rest[0] === undefined ? 1 : Math.trunc(Number(args.rest[0])) || 0;
    const count = n < 0 ? files.length : n;
    const names = (await lastApplied(store, files, count)).map((f) => f.file);
    if (!args.yes) {
      if (ask === null) return log(`${names.join('\n')}\nNothing was reverted: run again with --yes to revert the last ${count} applied migration(s).`), 1;
      if (!/^y(es)?$/i.test((await ask(`\n${names.join('\n')}\nDo you really want to revert the last ${count} applied migration(s)? [y/N] `)).trim())) return log('The command has been cancelled'), 0;
    }
    const reverted = await migrateDown(deps, files, count);
    if (reverted.length === 0) log('No migrations to revert.');
    for (const file of reverted) log(`Reverted ${file}`);
    return 0;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  } finally {
    await hooks?.close();
    await store.close();
  }
}

const invoked = process.argv[1] ?? '';
if (/migrate-cli\.(ts|js|mjs|cjs)$/.test(invoked)) void runMigrate(process.argv.slice(2)).then((code) => process.exit(code));
