// kill -9 during sustained concurrent writes and checkpoints, over real HTTP against a server in a child
// process: no acknowledged write (a 200 the client received) is ever lost, counters updated with `n+`
// keep every acknowledged increment, and the snapshot left behind is a healthy SQLite file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { SOAK } from '../fixtures/hardening-soak.js';

const KILLS = 20 * SOAK;
const WRITERS = 6;
const CHECKPOINT_BYTES = 4 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'deskbase-crash-'));
const running: Child[] = [];
afterAll(async () => {
  for (const c of running) await c.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function start(script: string): Promise<{ child: Child; url: string }> {
  const child = runChild(script, [dir, String(CHECKPOINT_BYTES)]);
  running.push(child);
  const line = await child.line((l) => l.startsWith('url ') || l.startsWith('failed '));
  if (line.startsWith('failed ')) throw new Error(line);
  return { child, url: line.slice(4) };
}

interface Tally {
  acked: Map<string, string>;
  attempted: Set<string>;
  incrementsSent: number;
  incrementsAcked: number;
  /** Answers other than 200 while the server was up: there must be none. */
  unexpected: string[];
}

const segmentNumbers = () => readdirSync(dir).filter((n) => /^journal\.\d+\.log$/.test(n)).map((n) => Number(n.split('.')[1]));
/** Resolves once `count` notes are acknowledged, or after `timeoutMs`. */
async function untilAcked(tally: Tally, count: number, timeoutMs: number): Promise<void> {
  for (const t0 = Date.now(); tally.acked.size < count && Date.now() - t0 < timeoutMs;) await sleep(2);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One client: creates notes and bumps the shared counter until the server goes away. */
async function writer(url: string, tag: string, counterId: string, tally: Tally): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if (i % 3 === 2) {
        tally.incrementsSent++;
        const r = await http(url, 'PATCH', `/api/collections/counters/records/${counterId}`, { body: { 'views+': 1 } });
        if (r.status === 200) tally.incrementsAcked++;
        else tally.unexpected.push(`${r.status} ${r.text}`);
      } else {
        const key = `${tag}-${i}`;
        const body = `${key} `.repeat(1 + (i % 40));
        tally.attempted.add(key);
        const r = await http(url, 'POST', '/api/collections/notes/records', { body: { key, body } });
        if (r.status === 200) tally.acked.set(key, body);
        else tally.unexpected.push(`${r.status} ${r.text}`);
      }
    } catch {
      return; // the server was killed under this request
    }
  }
}

async function allNotes(url: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let page = 1; ; page++) {
    const r = await http(url, 'GET', `/api/collections/notes/records?page=${page}&perPage=1000&skipTotal=1&sort=@rowid`);
    expect(r.status, r.text).toBe(200);
    for (const item of r.body.items as { key: string; body: string }[]) {
      expect(out.has(item.key), `duplicate ${item.key}`).toBe(false);
      out.set(item.key, item.body);
    }
    if (r.body.items.length < 1000) return out;
  }
}

describe('kill -9 under load', () => {
  it(`loses no acknowledged write across ${KILLS} kills during concurrent writes and checkpoints`, async () => {
    const script = await bundle('test/fixtures/hardening-server.ts');
    const first = await start(script);
    const setup = (await first.child.line((l) => l.startsWith('setup '))).slice(6);
    const su = await setupSuperuser(first.url, setup);
    const notes = await http(first.url, 'POST', '/api/collections', {
      token: su,
      body: { name: 'notes', fields: [{ name: 'key', type: 'text', required: true }, { name: 'body', type: 'text', max: 5000 }], listRule: '', viewRule: '', createRule: '' },
    });
    expect(notes.status, notes.text).toBe(200);
    const keyField = notes.body.fields.find((f: { name: string }) => f.name === 'key').id;
    expect((await http(first.url, 'PATCH', '/api/collections/notes', { token: su, body: { indexes: [{ name: 'notes_key', fields: [keyField], unique: true }] } })).status).toBe(200);
    const counters = await http(first.url, 'POST', '/api/collections', {
      token: su, body: { name: 'counters', fields: [{ name: 'views', type: 'number' }], viewRule: '', updateRule: '' },
    });
    expect(counters.status, counters.text).toBe(200);
    const counterId = (await http(first.url, 'POST', '/api/collections/counters/records', { token: su, body: { views: 0 } })).body.id as string;
    await first.child.kill();

    const tally: Tally = { acked: new Map(), attempted: new Set(), incrementsSent: 0, incrementsAcked: 0, unexpected: [] };
    for (let k = 0; k < KILLS; k++) {
      const { child, url } = await start(script);
      const clients = Array.from({ length: WRITERS }, (_, w) => writer(url, `L${k}W${w}`, counterId, tally));
      // kill at a random point: sometimes almost at once, mostly after some dozens of writes (counted,
      // not timed, so a loaded machine still gets them)
      if (k % 5 === 0) await sleep(5 + k);
      else await untilAcked(tally, tally.acked.size + 15 + ((k * 7919) % 40), 3000);
      await child.kill();
      await Promise.all(clients);
    }

    const last = await start(script);
    const stored = await allNotes(last.url);
    const lost = [...tally.acked].filter(([key, body]) => stored.get(key) !== body).map(([key]) => key);
    expect(lost, `${lost.length} of ${tally.acked.size} acknowledged notes lost`).toEqual([]);
    expect([...stored.keys()].filter((key) => !tally.attempted.has(key))).toEqual([]);
    const views = (await http(last.url, 'GET', `/api/collections/counters/records/${counterId}`)).body.views as number;
    expect(views).toBeGreaterThanOrEqual(tally.incrementsAcked);
    expect(views).toBeLessThanOrEqual(tally.incrementsSent);
    expect(tally.unexpected).toEqual([]);
    expect(tally.acked.size).toBeGreaterThan(KILLS * 10);

    console.log(`crash-kill: ${KILLS} kills, ${tally.acked.size} notes and ${tally.incrementsAcked} increments acknowledged, ${stored.size} notes stored, views ${views}, ${Math.max(...segmentNumbers())} journal segments`);
    // checkpoints ran during the lives (each one starts a new journal segment) and the clean stop leaves
    // a snapshot that SQLite itself finds healthy
    last.child.proc.kill('SIGTERM');
    expect((await last.child.exited).code).toBe(0);
    expect(Math.max(...segmentNumbers())).toBeGreaterThan(5);
    let integrity = 'ok';
    try {
      integrity = execFileSync('sqlite3', [join(dir, 'data.db'), 'PRAGMA integrity_check']).toString().trim();
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err; // no sqlite3 CLI on this machine
    }
    expect(integrity).toBe('ok');
  }, 120_000 * SOAK);
});
