// npm run move-up -- --dir DIR --db postgres://... [--dry-run | --yes]: moves a desktop
// data folder (collections, records, users and superusers with their passwords, files) into a team
// server's empty PostgreSQL database (core/transfer/desktop-folder.ts). Shaped as the PocketBase
// import (import-pocketbase.ts): it prints the plan first, then asks (in a terminal) or applies with
// --yes. The desktop folder's data is only read (it is opened as the desktop app opens it, under its
// lock, which refuses while the app still runs on it); the team server should not serve the database
// yet (its nodes would not see the moved collections until they restart).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactUrl } from './cli.js';
import { createCore } from './core/index.js';
import { ApiError } from './errors.js';
import type { MoveResult } from './core/transfer/desktop-folder.js';
import { terminalQuestion } from './import-pocketbase.js';
import { openStore, type Store } from './store/db.js';
import { openPostgresStore } from './store-postgres/store.js';

const HELP = `Moves a desktop data folder into a team server's empty PostgreSQL database.

Usage: npm run move-up -- --dir DIR --db URL [--dry-run | --yes]

  --dir DIR    the desktop's data folder (quit the desktop app first)
  --db URL     the team server's database, empty: postgres://USER:PASSWORD@HOST:PORT/DB
  --dry-run    check the destination and print what would move, changing nothing
  --yes        apply without asking (otherwise the plan is printed and, in a terminal, you are asked)

Collections (ids, fields, rules, indexes), records (ids, times), users and superusers with their
password hashes and the records' files (into the database, where the team server keeps them) move;
sessions do not (everyone signs in again). All or nothing: a failure leaves the database empty.`;

export interface MoveArgs {
  dir: string;
  db: string;
  dryRun: boolean;
  yes: boolean;
}

export function parseMoveArgs(argv: string[]): MoveArgs | { help: string } | { error: string } {
  let dir: string | null = null;
  let db: string | null = null;
  let dryRun = false;
  let yes = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--help' || flag === '-h') return { help: HELP };
    if (flag === '--dry-run') dryRun = true;
    else if (flag === '--yes' || flag === '-y') yes = true;
    else if (flag === '--dir') {
      const v = value();
      if (!v) return { error: '--dir needs a folder' };
      dir = resolve(v);
    } else if (flag === '--db') {
      const v = value();
      if (!v || !/^postgres(ql)?:\/\//.test(v)) return { error: `--db takes a PostgreSQL URL, for example postgres://USER:PASSWORD@HOST:5432/DB (got "${v === undefined ? '' : redactUrl(v)}")` };
      db = v;
    } else return { error: `unknown argument ${arg}\n\n${HELP}` };
  }
  if (dryRun && yes) return { error: '--dry-run and --yes: choose one' };
  if (dir === null || db === null) return { error: HELP };
  return { dir, db, dryRun, yes };
}

function printPlan(plan: MoveResult, to: string, log: (line: string) => void): void {
  log(`The database ${to} is empty. Moving would copy (nothing is changed yet):`);
  for (const c of plan.collections) {
    log(c.type === 'view' ? `  ${c.name}: view collection` : `  ${c.name}: ${c.type} collection, ${c.records} record(s)${c.files > 0 ? `, ${c.files} file(s)` : ''}`);
  }
  for (const n of plan.notes) log(`  - ${n}`);
}

/**
 * Exit codes: 0 moved (or a dry run printed), 1 failed or not applied, 2 usage. `ask`: the question
 * before applying (a terminal's; null where nobody is there to answer: only --yes applies).
 */
export async function runMoveUp(argv: string[], log: (line: string) => void = console.log, ask = terminalQuestion()): Promise<number> {
  const args = parseMoveArgs(argv);
  if ('help' in args) return log(args.help), 0;
  if ('error' in args) return console.error(args.error), 2;
  if (!existsSync(args.dir)) return console.error(`No data folder at ${args.dir}`), 1;
  const to = redactUrl(args.db);
  let source: Store | null = null;
  let dest: Store | null = null;
  try {
    try {
      source = await openStore({ dir: args.dir, log: (line) => log(line) });
    } catch (err) {
      return console.error(`Cannot open ${args.dir}: ${err instanceof Error ? err.message : String(err)}`), 1;
    }
    try {
      dest = await openPostgresStore({ url: args.db, max: 2 });
    } catch (err) {
      return console.error(`Cannot open ${to}: ${err instanceof Error ? err.message : String(err)}`), 1;
    }
    const core = await createCore(dest);
    const from = { db: source, dir: args.dir };
    const plan = await core.transfer.moveDesktopIn(from, { dryRun: true });
    if (!args.yes) {
      printPlan(plan, to, log);
      if (args.dryRun) return log('\nDry run: nothing was changed.'), 0;
      if (ask === null) return log('\nNothing was changed: run again with --yes to apply this plan.'), 1;
      if (!/^y(es)?$/i.test((await ask('\nMove now? [y/N] ')).trim())) return log('Nothing was changed.'), 1;
    }
    const started = performance.now();
    log(`Moving ${args.dir} into ${to}:`);
    const result = await core.transfer.moveDesktopIn(from, { progress: log });
    log(`Moved in ${((performance.now() - started) / 1000).toFixed(1)} s:`);
    for (const c of result.collections) {
      log(c.type === 'view' ? `  ${c.name}: view collection` : `  ${c.name}: ${c.records} record(s)${c.files > 0 ? `, ${c.files} file(s)` : ''}`);
    }
    for (const n of result.notes) log(`  - ${n}`);
    return 0;
  } catch (err) {
    // a refusal (400) says what is in the way and that nothing changed; anything else is a failure
    if (err instanceof ApiError && err.status === 400) return console.error(err.message), 1;
    console.error(`Moving failed, nothing was changed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await dest?.close();
    await source?.close();
  }
}

if (/move-up\.(ts|js|mjs|cjs)$/.test(process.argv[1] ?? '')) void runMoveUp(process.argv.slice(2)).then((code) => (process.exitCode = code));
