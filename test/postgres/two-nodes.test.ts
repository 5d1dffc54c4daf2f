// Two team-server nodes on ONE PostgreSQL database, each a real HTTP server on its own socket, driven
// with fetch and the official SDK: what one process used to hold in memory is shared through the
// database (core/sign-in-limiter.ts, core/setup.ts, core/file-tokens.ts).
// - the sign-in block: ten failed sign-ins split across the nodes (one after the other, or all at once)
//   block the eleventh on either, and no more than ten passwords are ever checked; wrong oldPasswords
//   on one node and wrong sign-ins on the other add up; the block's rows on two nodes' stores
//   (reservations, successes, unchecked attempts, the window, pruning);
// - setup: two nodes started together on an empty database; concurrent setups on both, each with its
//   own token and the other node's, create exactly one superuser, the others answering as a second
//   setup does; a setup waiting for another node's is not cut by its query budget;
// - file tokens: a token issued by one node opens a protected file on the other; nodes starting
//   together agree on one secret.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PocketBase from 'pocketbase';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAILURE_WINDOW_MS, MAX_FAILURES, StoreFailureLimiter } from '../../server/core/sign-in-limiter.js';
import { startServer, type RunningServer } from '../../server/index.js';
import { openPostgresStore, type PostgresStore } from '../../server/store-postgres/store.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';

const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };
const WRONG = { status: 400, message: 'Failed to authenticate.', data: {} };

/** A node of a team server on `db` (its files in `dir` when given, as `--dir`). */
async function node(db: FreshDatabase, tokens: string[] = [], dir: string | null = null): Promise<RunningServer> {
  return startServer({
    dir: null, openStore: () => openPostgresStore({ url: db.url, max: 4, dir }),
    port: 0, uiDir: null, log: () => undefined,
    onSetupToken: (token) => void tokens.push(token),
  });
}

async function post(server: RunningServer, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const client = (server: RunningServer): PocketBase => {
  const pb = new PocketBase(server.url);
  pb.autoCancellation(false);
  return pb;
};

describePostgres('two nodes on one database: setup', () => {
  let db: FreshDatabase;
  let a: RunningServer;
  let b: RunningServer;
  const tokensA: string[] = [];
  const tokensB: string[] = [];
  beforeAll(async () => {
    db = await freshDatabase('two_nodes_setup');
    // both started together on the empty database
    [a, b] = await Promise.all([node(db, tokensA), node(db, tokensB)]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('concurrent setups on both nodes, each with the other\'s token, create exactly one superuser', async () => {
    expect(tokensA).toHaveLength(1);
    expect(tokensB).toHaveLength(1);
    // each node printed its own link; the database keeps only their hashes
    expect(tokensA[0]).not.toBe(tokensB[0]);
    const params = await db.sql<{ key: string; value: string }[]>`SELECT "key", "value" FROM "_params"`;
    expect(JSON.stringify(params)).not.toContain(tokensA[0]);
    expect(JSON.stringify(params)).not.toContain(tokensB[0]);
    // eight at once: each node gets its own token and the other's, twice
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 === 0 ? a : b, '/api/setup', {
      token: (i % 4 < 2 ? tokensB : tokensA)[0], email: `setup${i}@example.com`, password: ADMIN.password,
    })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    // the others answer exactly what a second setup answers (also one whose token the winner's setup deleted meanwhile)
    for (const r of answers.filter((x) => x.status === 404)) expect(r.body).toEqual({ status: 404, message: 'Not found.', data: {} });
    const rows = await db.sql<{ email: string }[]>`SELECT "email" FROM "_superusers"`;
    expect(rows).toHaveLength(1);
    expect(rows[0].email).toBe(answers.find((r) => r.status === 200)!.body.email);
    for (const server of [a, b]) {
      const res = await fetch(`${server.url}/api/setup`);
      expect(await res.json()).toEqual({ required: false });
    }
    // the tokens went with the superuser's creation
    const left = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM "_params" WHERE "key" LIKE 'setupToken.%'`;
    expect(left[0].n).toBe(0);
  });
});

describePostgres('a setup waiting for another node\'s', () => {
  let db: FreshDatabase;
  let a: RunningServer;
  const tokens: string[] = [];
  beforeAll(async () => {
    db = await freshDatabase('setup_wait');
    a = await node(db, tokens);
  });
  afterAll(async () => {
    await a?.close();
    await db?.drop();
  });

  it('waits for it to end, however long, instead of failing on its query budget', async () => {
    // another node's setup transaction holds the claim for a second (far past the 150 ms budget)
    let taken!: () => void;
    const claimed = new Promise<void>((resolve) => (taken = resolve));
    const other = db.sql.begin(async (tx) => {
      await tx`INSERT INTO "_params" ("key", "value") VALUES ('setupClaim', '0') ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"`;
      taken();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      throw new Error('rolled back'); // it failed (say, on a bad field): this one may go on
    }).catch(() => undefined);
    await claimed;
    const started = Date.now();
    const res = await post(a, '/api/setup', { token: tokens[0], ...ADMIN });
    await other;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
  });
});

describePostgres('two nodes on one database: the sign-in block and file tokens', () => {
  let db: FreshDatabase;
  let dir: string;
  let a: RunningServer;
  let b: RunningServer;
  let recordId = '';
  let fileName = '';
  beforeAll(async () => {
    db = await freshDatabase('two_nodes');
    // one folder for the uploads of both nodes, as `--dir` on a shared folder
    dir = await mkdtemp(join(tmpdir(), 'deskbase-two-nodes-'));
    const tokens: string[] = [];
    a = await node(db, tokens, dir);
    expect((await post(a, '/api/setup', { token: tokens[0], ...ADMIN })).status).toBe(200);
    const admin = client(a);
    await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
    for (const email of ['ann@example.com', 'bob@example.com', 'cy@example.com', 'di@example.com', 'ed@example.com']) {
      await admin.collection('users').create({ email, password: 'password123', passwordConfirm: 'password123' });
    }
    await admin.collections.create({
      name: 'docs', type: 'base', viewRule: '@request.auth.id != ""',
      fields: [{ name: 'doc', type: 'file', maxSelect: 1, maxSize: 1000, protected: true }],
    });
    const form = new FormData();
    form.append('doc', new Blob(['secret text'], { type: 'text/plain' }), 'note.txt');
    const doc = await admin.collection('docs').create(form);
    recordId = doc.id;
    fileName = doc.doc as string;
    // node B starts on the database node A has written (its collections included)
    b = await node(db, [], dir);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const signIn = (server: RunningServer, identity: string, password: string) =>
    post(server, '/api/collections/users/auth-with-password', { identity, password });
  /** The account's count in the shared table: attempts reserved and those still counting. */
  const counted = async (email: string) => {
    const rows = await db.sql<{ reserved: number; counting: number }[]>`
      SELECT f."reserved", f."reserved" - f."forgiven" AS counting FROM "_signInFailures" f
      JOIN "users" u ON f."key" = (SELECT "id" FROM "_collections" WHERE "name" = 'users') || '/' || u."id"
      WHERE u."email" = ${email}`;
    return rows[0];
  };

  it('ten failed sign-ins split across the nodes block the eleventh on either, answering as a wrong password', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) {
      const r = await signIn(i % 2 === 0 ? a : b, 'ann@example.com', `wrong-${i}`);
      expect(r).toEqual({ status: 400, body: WRONG });
    }
    for (const server of [a, b]) expect(await signIn(server, 'ann@example.com', 'password123')).toEqual({ status: 400, body: WRONG });
    // another account is not blocked, on either node
    expect((await signIn(b, 'bob@example.com', 'password123')).status).toBe(200);
    expect((await signIn(a, 'bob@example.com', 'password123')).status).toBe(200);
  });

  it('ten failed sign-ins sent at once to both nodes block the eleventh on either', async () => {
    const burst = await Promise.all(Array.from({ length: MAX_FAILURES }, (_, i) => signIn(i % 2 === 0 ? a : b, 'cy@example.com', `wrong-${i}`)));
    for (const r of burst) expect(r).toEqual({ status: 400, body: WRONG });
    expect(await counted('cy@example.com')).toEqual({ reserved: MAX_FAILURES, counting: MAX_FAILURES });
    for (const server of [b, a]) expect(await signIn(server, 'cy@example.com', 'password123')).toEqual({ status: 400, body: WRONG });
  });

  it('of more than ten wrong guesses at once across the nodes, exactly ten are checked', async () => {
    const burst = await Promise.all(Array.from({ length: 16 }, (_, i) => signIn(i % 2 === 0 ? a : b, 'di@example.com', `wrong-${i}`)));
    for (const r of burst) expect(r).toEqual({ status: 400, body: WRONG });
    // the six beyond ten were refused before any check: never reserved
    expect(await counted('di@example.com')).toEqual({ reserved: MAX_FAILURES, counting: MAX_FAILURES });
    expect(await signIn(a, 'di@example.com', 'password123')).toEqual({ status: 400, body: WRONG });
  });

  it('wrong oldPasswords on one node and wrong sign-ins on the other add up to the same block', async () => {
    const ed = client(a);
    await ed.collection('users').authWithPassword('ed@example.com', 'password123');
    const change = async (oldPassword: string) => {
      const res = await fetch(`${a.url}/api/collections/users/records/${ed.authStore.record!.id}`, {
        method: 'PATCH', headers: { 'content-type': 'application/json', authorization: ed.authStore.token },
        body: JSON.stringify({ oldPassword, password: 'taken-over-1', passwordConfirm: 'taken-over-1' }),
      });
      return { status: res.status, body: await res.json() };
    };
    const wrongOld = { status: 400, message: 'Failed to update record.', data: { oldPassword: { code: 'validation_invalid_old_password', message: 'Missing or invalid old password.' } } };
    for (let i = 0; i < MAX_FAILURES / 2; i++) {
      expect(await change(`guess-${i}`)).toEqual({ status: 400, body: wrongOld });
      expect(await signIn(b, 'ed@example.com', `wrong-${i}`)).toEqual({ status: 400, body: WRONG });
    }
    // the right password, either way, on either node: refused as a wrong one, nothing changed
    expect(await change('password123')).toEqual({ status: 400, body: wrongOld });
    expect(await signIn(b, 'ed@example.com', 'password123')).toEqual({ status: 400, body: WRONG });
    expect(await signIn(a, 'ed@example.com', 'taken-over-1')).toEqual({ status: 400, body: WRONG });
  });

  it('a file token issued by one node opens a protected file on the other, both ways', async () => {
    const bob = client(a);
    await bob.collection('users').authWithPassword('bob@example.com', 'password123');
    const onB = client(b);
    onB.authStore.save(bob.authStore.token, bob.authStore.record);
    const url = (server: RunningServer, token?: string) =>
      `${server.url}/api/files/docs/${recordId}/${fileName}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
    // without a token: refused on both
    for (const server of [a, b]) expect((await fetch(url(server))).status).toBe(404);
    const fromA = await bob.files.getToken();
    const fromB = await onB.files.getToken();
    for (const [server, token] of [[b, fromA], [a, fromB], [a, fromA], [b, fromB]] as const) {
      const res = await fetch(url(server, token));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('secret text');
    }
    // a token signed under another secret is refused
    const forged = `${fromA.split('.').slice(0, 2).join('.')}.${Buffer.alloc(32).toString('base64url')}`;
    expect((await fetch(url(b, forged))).status).toBe(404);
  });

  it('two nodes starting together on a database without a secret agree on one', async () => {
    await db.sql`DELETE FROM "_params" WHERE "key" = 'fileTokenSecret'`;
    const [c, d] = await Promise.all([node(db, [], dir), node(db, [], dir)]);
    try {
      const rows = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM "_params" WHERE "key" = 'fileTokenSecret'`;
      expect(rows[0].n).toBe(1);
      const bob = client(c);
      await bob.collection('users').authWithPassword('bob@example.com', 'password123');
      const token = await bob.files.getToken();
      for (const server of [c, d]) {
        const res = await fetch(`${server.url}/api/files/docs/${recordId}/${fileName}?token=${encodeURIComponent(token)}`);
        expect(res.status).toBe(200);
      }
    } finally {
      await c.close();
      await d.close();
    }
  });
});

describePostgres('the sign-in block in the database (StoreFailureLimiter), two nodes\' stores', () => {
  let db: FreshDatabase;
  let one: PostgresStore;
  let two: PostgresStore;
  let now = Date.parse('2030-01-01T00:00:00Z');
  let a: StoreFailureLimiter;
  let b: StoreFailureLimiter;
  beforeAll(async () => {
    db = await freshDatabase('sign_in_block');
    [one, two] = await Promise.all([openPostgresStore({ url: db.url, max: 2 }), openPostgresStore({ url: db.url, max: 2 })]);
    a = new StoreFailureLimiter(one, () => now);
    b = new StoreFailureLimiter(two, () => now);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await db?.drop();
  });
  const fail = async (limiter: StoreFailureLimiter, key: string) => limiter.settle((await limiter.reserve(key))!, false);
  const rows = async () => (await db.sql<{ key: string }[]>`SELECT "key" FROM "_signInFailures" ORDER BY "key"`).map((r) => r.key);

  it('ten reservations on two nodes block an eleventh; a success forgives itself and what came before it, not what came after', async () => {
    const running = [];
    for (let i = 0; i < MAX_FAILURES; i++) running.push(await (i % 2 === 0 ? a : b).reserve('acct'));
    expect(running.every((r) => r !== null)).toBe(true);
    expect(await a.reserve('acct')).toBeNull();
    expect(await b.reserve('acct')).toBeNull();
    // the first succeeds: the nine reserved after it still count (as in memory), so one more may run
    await b.settle(running[0]!, true);
    expect(await a.reserve('acct')).not.toBeNull();
    expect(await b.reserve('acct')).toBeNull();
    expect(await a.reserve('other')).not.toBeNull();
  });

  it('an attempt never checked (a 429 before its hash) frees its place; a failure keeps it', async () => {
    for (let i = 0; i < MAX_FAILURES - 1; i++) await fail(i % 2 === 0 ? a : b, 'unchecked');
    const last = await a.reserve('unchecked');
    expect(await b.reserve('unchecked')).toBeNull();
    await a.settle(last!, null);
    const again = await b.reserve('unchecked');
    expect(again).not.toBeNull();
    await b.settle(again!, false);
    expect(await a.reserve('unchecked')).toBeNull();
  });

  it('the window closes fifteen minutes after it opened, and closed windows\' rows are deleted', async () => {
    const start = now;
    for (let i = 0; i < MAX_FAILURES - 1; i++) await fail(i % 2 === 0 ? a : b, 'windowed');
    const slow = await a.reserve('windowed'); // still being checked when its window closes
    now = start + FAILURE_WINDOW_MS - 1;
    expect(await b.reserve('windowed')).toBeNull();
    now = start + FAILURE_WINDOW_MS;
    // a new window: ten more checks, then blocked again
    for (let i = 0; i < MAX_FAILURES; i++) await fail(i % 2 === 0 ? b : a, 'windowed');
    // the earlier window's attempt succeeding late forgives nothing of the new one
    await a.settle(slow!, true);
    expect(await a.reserve('windowed')).toBeNull();
    // the reservations that opened it (a minute or more after the nodes' last prune) deleted the rows of
    // the closed windows, and only those
    expect(await rows()).toEqual(['windowed']);
    now += FAILURE_WINDOW_MS;
    await a.reserve('fresh');
    expect(await rows()).toEqual(['fresh']);
  });
});
