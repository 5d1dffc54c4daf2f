// npm run import-pocketbase -- <pb_data> [--dir DIR]: moves a PocketBase (v0.23+) data folder's
// collections, records, auth records (passwords included) and uploaded files into a Deskbase data
// folder. The PocketBase folder is only read; the Deskbase server must be stopped (the data folder's
// lock says so otherwise).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createCore } from './core/index.js';
import { openStore } from './store/db.js';

const HELP = `Moves a PocketBase (v0.23+) data folder into a Deskbase data folder.

Usage: npm run import-pocketbase -- <pb_data> [--dir DIR]

  <pb_data>  PocketBase's data folder (data.db and storage/), or its data.db
  --dir DIR  Deskbase data folder (default ./deskbase_data); stop the server using it first`;

export function parseImportArgs(argv: string[]): { source: string; dir: string } | { help: string } | { error: string } {
  let source: string | null = null;
  let dir = resolve('deskbase_data');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: HELP };
    if (arg === '--dir' || arg.startsWith('--dir=')) {
      const v = arg.includes('=') ? arg.slice(6) : argv[++i];
      if (!v) return { error: '--dir needs a folder' };
      dir = resolve(v);
    } else if (arg.startsWith('-')) return { error: `unknown option ${arg}\n\n${HELP}` };
    else if (source === null) source = resolve(arg);
    else return { error: `one PocketBase folder at a time (got ${arg} too)` };
  }
  return source === null ? { error: HELP } : { source, dir };
}

export async function runImport(argv: string[], log: (line: string) => void = console.log): Promise<number> {
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
    const started = performance.now();
    const result = await core.transfer.importPocketBaseFolder(args.source);
    log(`Imported into ${args.dir} in ${((performance.now() - started) / 1000).toFixed(1)} s:`);
    for (const c of result.changes) {
      const copied = result.records.find((r) => r.collection === c.name);
      const files = copied?.files ?? 0;
      log(`  ${c.name}: collection ${c.action}, ${copied?.count ?? 0} records${files > 0 ? `, ${files} file${files === 1 ? '' : 's'}` : ''}`);
    }
    if (result.notes.length > 0) log('\nLeft out or changed:');
    for (const n of result.notes) log(`  - ${n.collection === '*' ? '' : `${n.collection}: `}${n.item}: ${n.reason}`);
    return 0;
  } catch (err) {
    console.error(`Import failed, nothing was changed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await store.close();
  }
}

if (/import-pocketbase\.(ts|js|mjs|cjs)$/.test(process.argv[1] ?? '')) void runImport(process.argv.slice(2)).then((code) => (process.exitCode = code));
