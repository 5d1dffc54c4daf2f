// npm run serve -- [--db postgres://...] [--dir DIR] [--http HOST:PORT] [--https [--https-cert FILE --https-key FILE]] [--verbose] [--hooks DIR ...] [--migrations DIR]
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { startServer } from './index.js';
import { InvalidPostgresUrl, openPostgresStore } from './store-postgres/store.js';

/** The URL without its password, for printing. */
export function redactUrl(url: string): string {
  // up to the last '@' of the address: a password may hold an unencoded '@'
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:).*@(?=[^@]*$)/, '$1***@');
}

export interface CliOptions {
  dir: string;
  /** A team server's PostgreSQL (postgres://USER:PASSWORD@HOST:PORT/DB, the libpq multi-host form too), or null for the desktop engine. */
  db: string | null;
  /** Whether --dir was given (a team server keeps no data folder unless told to). */
  dirGiven: boolean;
  host: string;
  port: number;
  strictPort: boolean;
  verbose: boolean;
  /** false, true (a certificate Deskbase makes, kept in DIR/tls), or the files the user gives. */
  https: boolean | { certFile: string; keyFile: string };
  /** The pb_migrations folder (--migrations), or undefined for the default beside the data folder. */
  migrationsDir?: string;
  /** The pb_hooks folder (undefined: `pb_hooks` beside the data folder, as PocketBase). */
  hooksDir?: string;
  /** Reload hooks when a file changes (PocketBase's --hooksWatch, on by default as there). */
  hooksWatch: boolean;
  /** A hook's time limit in ms (--hooksTimeout SECONDS). */
  hooksTimeoutMs?: number;
  /** Hook workers kept loaded (PocketBase's --hooksPool). */
  hooksPool?: number;
}

export function parseArgs(argv: string[]): CliOptions | { help: string } | { error: string } {
  const out: CliOptions = { dir: resolve('deskbase_data'), db: null, dirGiven: false, host: '127.0.0.1', port: 8090, strictPort: false, verbose: false, https: false, hooksWatch: true };
  let certFile: string | null = null;
  let keyFile: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--dir') {
      const v = value();
      if (!v) return { error: '--dir needs a folder' };
      out.dir = resolve(v);
      out.dirGiven = true;
    } else if (flag === '--db') {
      const v = value();
      if (!v || !/^postgres(ql)?:\/\//.test(v)) return { error: `--db takes a PostgreSQL URL, for example postgres://USER:PASSWORD@HOST:5432/DB (got "${(v ?? '').replace(/:[^:@/]*@/, ':***@')}")` };
      out.db = v;
    } else if (flag === '--http') {
      const v = value() ?? '';
      const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(v);
      if (!m || Number(m[3]) > 65535) return { error: `--http takes HOST:PORT, for example 127.0.0.1:8090 (got "${v}")` };
      out.host = m[1] ?? (m[2] || '127.0.0.1');
      out.port = Number(m[3]);
      out.strictPort = true;
    } else if (flag === '--https') {
      if (inline !== undefined) return { error: '--https takes no value (give a certificate with --https-cert FILE --https-key FILE)' };
      out.https = true;
    } else if (flag === '--https-cert' || flag === '--https-key') {
      const v = value();
      if (!v) return { error: `${flag} needs a PEM file` };
      if (flag === '--https-cert') certFile = resolve(v);
      else keyFile = resolve(v);
    } else if (flag === '--migrations') {
      const v = value();
      if (!v) return { error: '--migrations needs a folder' };
      out.migrationsDir = resolve(v);
    } else if (flag === '--verbose' || flag === '-v') out.verbose = true;
    else if (flag === '--hooks' || flag === '--hooksDir') {
      const v = value();
      if (!v) return { error: `${flag} needs a folder` };
      out.hooksDir = resolve(v);
    } else if (flag === '--hooksWatch') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') return { error: `--hooksWatch takes true or false (got "${inline}")` };
      out.hooksWatch = inline !== 'false';
    } else if (flag === '--hooksTimeout') {
      const v = value();
      const n = Number(v);
      if (!v || !Number.isFinite(n) || n <= 0 || n > 3600) return { error: `--hooksTimeout takes seconds, from 0.001 to 3600 (got "${v ?? ''}")` };
      out.hooksTimeoutMs = Math.round(n * 1000);
    } else if (flag === '--hooksPool') {
      const v = value();
      const n = Number(v);
      if (!v || !Number.isInteger(n) || n < 1 || n > 16) return { error: `--hooksPool takes a number of workers from 1 to 16 (got "${v ?? ''}")` };
      out.hooksPool = n;
    } else if (flag === '--help' || flag === '-h') return { help: HELP };
    else return { error: `unknown option ${arg}\n\n${HELP}` };
  }
  if ((certFile === null) !== (keyFile === null)) return { error: '--https-cert and --https-key go together' };
  if (certFile !== null && keyFile !== null) {
    if (!out.https) return { error: '--https-cert and --https-key need --https' };
    out.https = { certFile, keyFile };
  }
  return out;
}

const HELP = `Deskbase server

Usage: npm run serve -- [--db URL] [--dir DIR] [--http HOST:PORT] [--https [--https-cert FILE --https-key FILE]] [--verbose] [--hooks DIR] [--migrations DIR]

  --db URL           serve a team server from this PostgreSQL database instead of the desktop engine:
                     postgres://USER:PASSWORD@HOST:PORT/DB, or several hosts with
                     postgres://USER:PASSWORD@H1:P1,H2:P2/DB?target_session_attrs=primary
                     (README, "Team server")
  --dir DIR          data folder (default ./deskbase_data)
  --http HOST:PORT   address to listen on (default 127.0.0.1:8090; 0.0.0.0:PORT for the LAN)
  --https            serve HTTPS: with a certificate Deskbase makes and keeps in DIR/tls (devices trust
                     its CA, DIR/tls/ca.pem, once), or the one given by --https-cert and --https-key
  --https-cert FILE  the certificate chain (PEM)
  --https-key FILE   its private key (PEM)
  --verbose          log every request as a JSON line
  --hooks DIR        the pb_hooks folder of server-side hooks (default: pb_hooks beside the data folder;
                     README, "Server-side logic"); also --hooksDir
  --hooksWatch=false do not reload the hooks when a file changes (reloaded by default)
  --hooksTimeout S   how long one hook may run before it is stopped (default 10 seconds)
  --hooksPool N      hook workers kept loaded (default 2)
  --migrations DIR   JS migrations (pb_migrations/*.js) applied at start, each once (default
                     pb_migrations beside the data folder; npm run migrate -- up|down|create|collections)`;

export async function main(argv: string[]): Promise<void> {
  const parsed = parseArgs(argv);
  if ('help' in parsed) {
    console.log(parsed.help);
    return;
  }
  if ('error' in parsed) {
    console.error(parsed.error);
    process.exitCode = 2;
    return;
  }
  let server;
  try {
    const https =
      parsed.https === false ? undefined
      : parsed.https === true ? (true as const)
      : { cert: await readFile(parsed.https.certFile, 'utf8'), key: await readFile(parsed.https.keyFile, 'utf8') };
    const db = parsed.db;
    const dir = db !== null && !parsed.dirGiven ? null : parsed.dir;
    // at once: reaching the database may take up to its connect timeout (store-postgres/store.ts)
    if (db !== null) console.log(`Connecting to ${redactUrl(db)}...`);
    server = await startServer({
      dir,
      ...(db !== null ? { openStore: () => openPostgresStore({ url: db, dir }) } : {}),
      host: parsed.host, port: parsed.port, strictPort: parsed.strictPort, verbose: parsed.verbose, https,
      // a team server without a data folder runs hooks only from --hooks
      hooksDir: parsed.hooksDir ?? (dir === null ? null : undefined),
      hooksWatch: parsed.hooksWatch, hooksTimeoutMs: parsed.hooksTimeoutMs, hooksPool: parsed.hooksPool,
      ...(parsed.migrationsDir !== undefined ? { migrationsDir: parsed.migrationsDir } : {}),
    });
  } catch (err) {
    if (err instanceof InvalidPostgresUrl) console.error(`Deskbase could not start: the --db URL is not valid: ${err.message}.`);
    else console.error(`Deskbase could not start: ${err instanceof Error ? err.message : String(err)}`);
    // now: a connection to a database that never answered may linger in the driver until it gives up
    process.exit(1);
  }
  console.log(`Deskbase is running.`);
  console.log(`  Admin UI: ${server.url}/_/`);
  console.log(`  REST API: ${server.url}/api/`);
  for (const url of await server.lanUrls()) console.log(`  On the LAN: ${url}/_/`);
  if (parsed.db !== null) console.log(`  Database: ${redactUrl(parsed.db)}`);
  if (parsed.db === null || parsed.dirGiven) console.log(`  Data folder: ${parsed.dir}`);
  if (server.hooks) console.log(`  Hooks: ${server.hooks.options.dir} (${server.hooks.handlerCount} handlers)`);
  if (server.tls) {
    console.log(`  HTTPS certificate authority: ${server.tls.caPath}`);
    console.log(`    SHA-256 ${server.tls.caFingerprint}`);
    console.log('    Install it on each device once (README, "HTTPS on the LAN"); compare the fingerprint when asked.');
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: saving and stopping...`);
    try {
      await server.close();
      process.exit(0);
    } catch (err) {
      // e.g. a full disk refuses the final snapshot: the journal still holds every acknowledged write
      console.error(`Could not write the final snapshot (${err instanceof Error ? err.message : String(err)}); no data is lost: the journal is replayed on the next start.`);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

const invoked = process.argv[1] ?? '';
if (/cli\.(ts|js|mjs|cjs)$/.test(invoked)) void main(process.argv.slice(2));
