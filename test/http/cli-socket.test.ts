// The one test over a real socket for the headless server: the CLI's argument parsing, startServer on
// a free port, the UI redirect, and a clean close that leaves no handle open.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { parseArgs, redactUrl } from '../../server/cli.js';
import { startServer, type RunningServer } from '../../server/index.js';

let dir = '';
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CLI arguments', () => {
  it.each([
    [[], { host: '127.0.0.1', port: 8090, strictPort: false }],
    [['--http', '0.0.0.0:9000'], { host: '0.0.0.0', port: 9000, strictPort: true }],
    [['--http=127.0.0.1:1234', '--verbose'], { port: 1234, verbose: true }],
    [['--http', '[::1]:8080'], { host: '::1', port: 8080 }],
    [[], { db: null, dirGiven: false }],
    [['--db', 'postgres://u:p@h1:5432,h2:5433/app?target_session_attrs=primary'], { db: 'postgres://u:p@h1:5432,h2:5433/app?target_session_attrs=primary', dirGiven: false }],
    [['--db=postgresql://u@h/app', '--dir', 'files'], { db: 'postgresql://u@h/app', dirGiven: true }],
  ])('%j', (argv, expected) => {
    expect(parseArgs(argv)).toMatchObject(expected);
  });
  it.each([[['--http', 'nope']], [['--http', '1.2.3.4:99999']], [['--bogus']], [['--dir']], [['--db']], [['--db', 'mysql://h/app']], [['--db', '/tmp/x.db']]])('%j is an error', (argv) => {
    expect(parseArgs(argv)).toHaveProperty('error');
  });
});

it('redactUrl hides the password of a printed database URL', () => {
  expect(redactUrl('postgres://deskbase:s3cr@t@h1:5432,h2:5433/app')).toBe('postgres://deskbase:***@h1:5432,h2:5433/app');
  expect(redactUrl('postgres://h/app')).toBe('postgres://h/app');
});

describe('startServer over a socket', () => {
  it('serves health, redirects / to /_/, serves /_/ without looping, and closes cleanly', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-cli-'));
    const lines: string[] = [];
    // uiDir null: the page that says how to build the UI (a clean clone has no dist/ yet)
    server = await startServer({ dir, port: 0, uiDir: null, log: (l) => lines.push(l) });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines.some((l) => l.startsWith('Setup token: '))).toBe(true);
    expect(lines.some((l) => l.includes('/_/#/setup?token='))).toBe(true);
    const health = await fetch(`${server.url}/api/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/_/');
    const ui = await fetch(`${server.url}/_/`, { redirect: 'manual' });
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(await ui.text()).toMatch(/npm run build/);
    const bare = await fetch(`${server.url}/_`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    await server.close();
    server = null;
    await expect(fetch(`${server ?? 'http://127.0.0.1:1'}/api/health`)).rejects.toThrow();
  });

  it('an explicit port that is taken fails with a clear message', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskbase-cli-'));
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startServer({ dir, port, strictPort: true, log: () => {} })).rejects.toThrow(/already in use/);
    } finally {
      blocker.close();
    }
  });
});
