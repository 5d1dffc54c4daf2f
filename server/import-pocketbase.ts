// npm run import-pocketbase -- <pb_data> [--dir DIR] [--dry-run | --yes]: moves a PocketBase (v0.23+)
// data folder's collections, records, auth records (passwords included) and uploaded files into a
// Deskbase data folder. It first prints the plan (a dry run: collections and fields changed, records,
// rules the import opens, what is left out), then asks before applying it (in a terminal), or applies
// it with --yes; elsewhere it changes nothing. The PocketBase folder is only read; the Deskbase server
// must be stopped (the data folder's lock says so otherwise).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { createCore } from './core/index.js';
import type { PocketBaseImportResult } from './core/transfer/pocketbase-folder.js';
import { openStore } from './store/db.js';

const HELP = `Moves a PocketBase (v0.23+) data folder into a Deskbase data folder.

Usage: npm run import-pocketbase -- <pb_data> [--dir DIR] [--dry-run | --yes]

  <pb_data>  PocketBase's data folder (data.db and storage/), or its data.db
  --dir DIR  Deskbase data folder (default ./deskbase_data); stop the server using it first
  --dry-run  print what the import would change, and change nothing
  --yes      apply without asking (otherwise the plan is printed and, in a terminal, you are asked)`;

export interface ImportArgs {
  source: string;
  dir: string;
  dryRun: boolean;
  yes: boolean;
}

export function parseImportArgs(argv: string[]): ImportArgs | { help: string } | { error: string } {
  let source: string | null = null;
  let dir = resolve('deskbase_data');
  let dryRun = false;
  let yes = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: HELP };
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--yes' || arg === '-y') yes = true;
    else if (arg === '--dir' || arg.startsWith('--dir=')) {
      const v = arg.includes('=') ? arg.slice(6) : argv[++i];
      if (!v) return { error: '--dir needs a folder' };
      dir = resolve(v);
    } else if (arg.startsWith('-')) return { error: `unknown option ${arg}\n\n${HELP}` };
    else if (source === null) source = resolve(arg);
    else return { error: `one PocketBase folder at a time (got ${arg} too)` };
  }
  if (dryRun && yes) return { error: '--dry-run and --yes: choose one' };
  return source === null ? { error: HELP } : { source, dir, dryRun, yes };
}

const noteLine = (n: PocketBaseImportResult['notes'][number]) => `  ${n.warning ? '!' : '-'} ${n.collection === '*' ? '' : `${n.collection}: `}${n.item}: ${n.reason}`;

/** What a dry run found: each collection's change (fields and settings), its records, then warnings and notes. */
function printPlan(plan: PocketBaseImportResult, dir: string, log: (line: string) => void): void {
  log(`The import into ${dir} would change (nothing is changed yet):`);
  for (const c of plan.changes) {
    const count = plan.records.find((r) => r.collection === c.name)?.count ?? 0;
    const fields = [...c.fields.added.map((n) => `+${n}`), ...c.fields.changed.map((n) => `~${n}`), ...c.fields.removed.map((n) => `-${n}`)];
    const detail = [fields.length > 0 && c.action !== 'added' ? `fields ${fields.join(' ')}` : '', c.settings.length > 0 ? `settings ${c.settings.join(', ')}` : ''].filter(Boolean).join('; ');
    log(`  ${c.name}: collection ${c.action}${detail ? ` (${detail})` : ''}, ${count} records`);
  }
  const warnings = plan.notes.filter((n) => n.warning);
  if (warnings.length > 0) log('\nRules the import opens (check them before applying):');
  for (const n of warnings) log(noteLine(n));
  const notes = plan.notes.filter((n) => !n.warning);
  if (notes.length > 0) log('\nLeft out or changed:');
  for (const n of notes) log(noteLine(n));
}

/** The question in a terminal; null where there is nobody to ask (then --yes is needed to apply). */
export function terminalQuestion(): ((question: string) => Promise<string>) | null {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return null;
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}

/**
 * `ask` puts the question before applying (a terminal's by default; null: no one to ask, so only
 * --yes applies). Exit codes: 0 imported (or a dry run printed), 1 failed or not applied, 2 usage.
 */
export async function runImport(argv: string[], log: (line: string) => void = console.log, ask = terminalQuestion()): Promise<number> {
  const args = parseImportArgs(argv);
  if ('help' in args) return log(args.help), 0;
  if ('error' in args) return console.error(args.error), 2;
  if (!existsSync(args.source)) return console.error(`No PocketBase folder or database at ${args.source}`), 1;
  let store;
  try {
    store = await openStore({ dir: args.dir });
  } catch (err) {
    return console.error(`Cannot open ${args.dir}: ${err instanceof Error ? err.message : String(err)}`), 1;
  }
  try {
    const core = await createCore(store);
    if (!args.yes) {
      printPlan(await core.transfer.importPocketBaseFolder(args.source, true), args.dir, log);
      if (args.dryRun) return log('\nDry run: nothing was changed.'), 0;
      if (ask === null) return log('\nNothing was changed: run again with --yes to apply this plan.'), 1;
      if (!/^y(es)?$/i.test((await ask('\nApply these changes? [y/N] ')).trim())) return log('Nothing was changed.'), 1;
    }
    const started = performance.now();
    const result = await core.transfer.importPocketBaseFolder(args.source);
    log(`Imported into ${args.dir} in ${((performance.now() - started) / 1000).toFixed(1)} s:`);
    for (const c of result.changes) {
      const copied = result.records.find((r) => r.collection === c.name);
      const files = copied?.files ?? 0;
      log(`  ${c.name}: collection ${c.action}, ${copied?.count ?? 0} records${files > 0 ? `, ${files} file${files === 1 ? '' : 's'}` : ''}`);
    }
    if (result.notes.length > 0) log('\nLeft out or changed:');
    for (const n of result.notes) log(noteLine(n));
    return 0;
  } catch (err) {
    console.error(`Import failed, nothing was changed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await store.close();
  }
}

if (/import-pocketbase\.(ts|js|mjs|cjs)$/.test(process.argv[1] ?? '')) void runImport(process.argv.slice(2)).then((code) => (process.exitCode = code));
