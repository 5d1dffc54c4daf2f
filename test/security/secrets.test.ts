// Through the CLI, as a user runs it (with --verbose): tokens, passwords and password hashes never
// appear in a response (beyond the token a sign-in hands out) nor in the server's output, the request
// log is one JSON line per request with method, path, status and duration, and the data folder holds
// session hashes, never tokens. Without --verbose no request is logged.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../server/store/db.js';
import { ROOT } from '../fixtures/hardening-child.js';
import { http, type HttpOpts, type HttpRes } from '../fixtures/hardening-http.js';

const dir = mkdtempSync(join(tmpdir(), 'deskbase-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Cli {
  url: string;
  output: string[];
  stop(): Promise<number | null>;
}

/** Starts `server/cli.ts` under tsx on a free port; resolves once it prints the API URL. */
function startCli(args: string[]): Promise<Cli> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli.ts'), '--dir', dir, '--http', '127.0.0.1:0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    for (const stream of [proc.stdout, proc.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        const m = /REST API: (http:\/\/[^/]+)\/api\//.exec(line);
        if (m) resolve({ url: m[1], output, stop: () => (proc.kill('SIGTERM'), exited) });
      });
    }
    void exited.then((code) => reject(new Error(`cli exited (${code}): ${output.join('\n')}`)));
  });
}

const SU_PASSWORD = 'superuser pass 9f3k';
const USER_PASSWORD = 'user pass 1x7q';
const NEW_PASSWORD = 'changed pass 5m2w';

interface Exchange { label: string; method: string; path: string; res: HttpRes; mayShow: string[] }

describe('secrets through the CLI', () => {
  it('tokens, passwords and hashes stay out of responses, logs and the data folder', async () => {
    const cli = await startCli(['--verbose']);
    const setupToken = /Setup token: (\S+)/.exec(cli.output.join('\n'))?.[1] ?? '';
    expect(setupToken).not.toBe('');
    const exchanges: Exchange[] = [];
    const call = async (label: string, method: string, path: string, opts: HttpOpts = {}, mayShow: string[] = []) => {
      const res = await http(cli.url, method, path, opts);
      exchanges.push({ label, method, path, res, mayShow });
      return res;
    };

    expect((await call('setup', 'POST', '/api/setup', { body: { token: setupToken, email: 'root@example.com', password: SU_PASSWORD } })).status).toBe(200);
    const suSignIn = await call('su sign-in', 'POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'root@example.com', password: SU_PASSWORD } });
    const su = suSignIn.body.token as string;
    exchanges.at(-1)!.mayShow.push(su);
    await call('collection', 'POST', '/api/collections', { token: su, body: { name: 'notes', fields: [{ name: 'text', type: 'text' }, { name: 'secret', type: 'text', hidden: true }], listRule: '', viewRule: '', createRule: '' } });
    const signUp = await call('sign-up', 'POST', '/api/collections/users/records?expand=&fields=*', { body: { email: 'ann@example.com', password: USER_PASSWORD, passwordConfirm: USER_PASSWORD, name: 'Ann' } });
    expect(signUp.status).toBe(200);
    const userSignIn = await call('user sign-in', 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: USER_PASSWORD } });
    const user = userSignIn.body.token as string;
    exchanges.at(-1)!.mayShow.push(user);
    const cookieSignIn = await call('cookie sign-in', 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: USER_PASSWORD, cookie: true }, headers: { origin: cli.url } });
    const cookieToken = /service_session=([^;]+)/.exec(cookieSignIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect(cookieToken).toHaveLength(43);
    exchanges.at(-1)!.mayShow.push(cookieToken);
    await call('refresh', 'POST', '/api/collections/users/auth-refresh', { token: user }, [user]);
    await call('bare token refresh', 'POST', '/api/collections/users/auth-refresh', { headers: { authorization: user } }, [user]);
    await call('session', 'GET', '/api/session', { token: user });
    await call('sessions', 'GET', '/api/sessions', { token: user });
    await call('cookie session', 'GET', '/api/session', { headers: { cookie: `service_session=${cookieToken}` } });
    await call('users as su', 'GET', '/api/collections/users/records?fields=*', { token: su });
    await call('superusers as su', 'GET', '/api/collections/_superusers/records', { token: su });
    await call('note', 'POST', '/api/collections/notes/records', { body: { text: 'hello', secret: 'hidden value' } });
    await call('notes', 'GET', '/api/collections/notes/records', { token: user });
    const me = signUp.body.id as string;
    expect((await call('password change', 'PATCH', `/api/collections/users/records/${me}`, { token: user, body: { password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD, oldPassword: USER_PASSWORD } })).status).toBe(200);
    await call('wrong password', 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'ann@example.com', password: USER_PASSWORD } });
    await call('unknown identity', 'POST', '/api/collections/users/auth-with-password', { body: { identity: 'ghost@example.com', password: NEW_PASSWORD } });
    await call('token in a query', 'GET', `/api/health?token=${user}&password=${encodeURIComponent(NEW_PASSWORD)}`);
    await call('bad filter', 'GET', `/api/collections/notes/records?filter=${encodeURIComponent(`text = '${user}' &&`)}`, { token: su });
    await call('garbage token', 'GET', '/api/collections/users/records', { headers: { authorization: `Bearer ${user}x` } });
    await call('not found', 'GET', '/api/nope');
    expect(await cli.stop()).toBe(0);

    const secrets = [su, user, cookieToken, SU_PASSWORD, USER_PASSWORD, NEW_PASSWORD, 'scrypt$'];
    for (const ex of exchanges) {
      const seen = `${ex.res.text}\n${[...ex.res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`;
      for (const secret of secrets) if (!ex.mayShow.includes(secret)) expect(seen, `${ex.label} shows ${secret}`).not.toContain(secret);
    }
    const log = cli.output.join('\n');
    for (const secret of secrets) expect(log, `the log shows ${secret}`).not.toContain(secret);

    // one structured line per request, in order, matching what the client saw
    const requests = cli.output.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.level === 'info');
    expect(requests.map((e) => [e.method, e.path, e.status])).toEqual(exchanges.map((ex) => [ex.method, ex.path.split('?')[0], ex.res.status]));
    for (const entry of requests) {
      expect(Object.keys(entry).sort()).toEqual(['level', 'method', 'ms', 'path', 'status', 'time']);
      expect(typeof entry.ms).toBe('number');
      expect(Number.isNaN(Date.parse(String(entry.time)))).toBe(false);
    }

    // at rest: session hashes, never tokens or passwords, in any file of the data folder (the logs' own
    // database in logs/ included)
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    expect(files.some((f) => f.includes(`${join(dir, 'logs')}`))).toBe(true);
    for (const name of files) {
      // the bad filter's literal is what the client sent as data: the logs keep a request's URL as sent
      // (PocketBase's too), so that one text is no leak; every other place of the token would be
      const bytes = readFileSync(name).toString('latin1').replaceAll(`text = '${user}'`, '').replaceAll(`text%20%3D%20%27${user}%27`, '');
      // a token's secret is its first and last segments (the middle only claims the expiry)
      const segments = [su, user, cookieToken].flatMap((t) => [t.split('.')[0], t.split('.')[2]]);
      for (const secret of [su, user, cookieToken, ...segments, SU_PASSWORD, USER_PASSWORD, NEW_PASSWORD]) expect(bytes, `${name} holds ${secret}`).not.toContain(secret);
    }
    const secretHash = (t: string) => createHash('sha256').update(t.split('.')[0] + t.split('.')[2]).digest('hex');
    const store = await openStore({ dir });
    try {
      const hashes = (await store.all<{ tokenHash: string }>('SELECT "tokenHash" FROM "_sessions"')).map((r) => r.tokenHash);
      // the password change ended the cookie session; the caller's own session stays
      expect(hashes).toContain(secretHash(user));
      expect(hashes).toContain(secretHash(su));
      expect(hashes).not.toContain(secretHash(cookieToken));
    } finally {
      await store.close();
    }
  });

  it('without --verbose, requests are not logged', async () => {
    const cli = await startCli([]);
    for (const path of ['/api/health', '/api/collections/notes/records', '/api/nope']) await http(cli.url, 'GET', path);
    expect(await cli.stop()).toBe(0);
    expect(cli.output.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(cli.output.join('\n')).not.toMatch(/Setup token/); // setup is done: no new token is printed
  });
});
