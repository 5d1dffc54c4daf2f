// kill -9 while clients upload, replace and delete files, against a server in a child process on a
// real data folder: after each restart every record names only files that exist (no acknowledged file
// lost), no file is left that no record names (the start-up sweep), and no temporary upload remains.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { SOAK } from '../fixtures/hardening-soak.js';

const KILLS = 6 * SOAK;
const WRITERS = 4;

const dir = mkdtempSync(join(tmpdir(), 'deskbase-crash-files-'));
const running: Child[] = [];
afterAll(async () => {
  for (const c of running) await c.kill();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(script: string): Promise<{ child: Child; url: string }> {
  const child = runChild(script, [dir, String(64 * 1024)]);
  running.push(child);
  const line = await child.line((l) => l.startsWith('url ') || l.startsWith('failed '));
  if (line.startsWith('failed ')) throw new Error(line);
  return { child, url: line.slice(4) };
}

function upload(url: string, method: string, path: string, token: string, fields: Record<string, string>, files: [string, string, number][]): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [key, name, size] of files) form.append(key, new File([Buffer.alloc(size, name.charCodeAt(0))], name));
  return fetch(`${url}${path}`, { method, body: form, headers: { authorization: `Bearer ${token}` } });
}

interface Tally { acked: Map<string, string[]>; deleting: Set<string>; unexpected: string[] }

/** One client: creates records with files, replaces and appends files, deletes records, until killed. */
async function writer(url: string, token: string, tag: string, tally: Tally): Promise<void> {
  const mine: string[] = [];
  for (let i = 0; ; i++) {
    try {
      const target = mine[i % Math.max(mine.length, 1)];
      let res: Response;
      if (mine.length < 3 || i % 4 === 0) {
        res = await upload(url, 'POST', '/api/collections/docs/records', token, { tag }, [['files', `a${i}.bin`, 20_000 + (i % 7) * 9000], ['files', `b${i}.txt`, 300]]);
      } else if (i % 4 === 1) {
        res = await upload(url, 'PATCH', `/api/collections/docs/records/${target}`, token, {}, [['files', `r${i}.bin`, 50_000]]);
      } else if (i % 4 === 2) {
        res = await upload(url, 'PATCH', `/api/collections/docs/records/${target}`, token, {}, [['files+', `p${i}.txt`, 100]]);
      } else {
        tally.deleting.add(target);
        res = await fetch(`${url}/api/collections/docs/records/${target}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
        if (res.status === 204) {
          tally.acked.delete(target);
          mine.splice(mine.indexOf(target), 1);
          continue;
        }
      }
      const body = (await res.json()) as { id: string; files: string[] };
      if (res.status === 200) {
        tally.acked.set(body.id, body.files);
        if (!mine.includes(body.id)) mine.push(body.id);
      } else if (!(res.status === 400 && JSON.stringify(body).includes('validation_too_many_files'))) {
        tally.unexpected.push(`${res.status} ${JSON.stringify(body)}`);
      }
    } catch {
      return; // killed under this request
    }
  }
}

/** Every file under storage/, as <collectionId>/<recordId>/<name>. */
function storedFiles(): string[] {
  const out: string[] = [];
  const root = join(dir, 'storage');
  for (const c of safeList(root)) for (const r of safeList(join(root, c))) for (const f of safeList(join(root, c, r))) {
    if (statSync(join(root, c, r, f)).isFile()) out.push(`${c}/${r}/${f}`);
  }
  return out.sort();
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

async function allNamed(url: string, token: string, collectionId: string): Promise<Map<string, string[]>> {
  const r = await http(url, 'GET', '/api/collections/docs/records?perPage=1000&skipTotal=1', { token });
  expect(r.status, r.text).toBe(200);
  return new Map((r.body.items as { id: string; files: string[] }[]).map((i) => [`${collectionId}/${i.id}`, i.files]));
}

describe('kill -9 with files', () => {
  it(`loses no acknowledged file and leaves no orphan across ${KILLS} kills`, async () => {
    const script = await bundle('test/fixtures/hardening-server.ts');
    const first = await start(script);
    const setup = (await first.child.line((l) => l.startsWith('setup '))).slice(6);
    const su = await setupSuperuser(first.url, setup);
    const docs = await http(first.url, 'POST', '/api/collections', { token: su, body: { name: 'docs', fields: [{ name: 'tag', type: 'text' }, { name: 'files', type: 'file', maxSelect: 6 }] } });
    expect(docs.status, docs.text).toBe(200);
    const colId = docs.body.id as string;
    await first.child.kill();

    const tally: Tally = { acked: new Map(), deleting: new Set(), unexpected: [] };
    let checks = 0;
    for (let k = 0; k <= KILLS; k++) {
      const { child, url } = await start(script);
      const token = (await http(url, 'POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token as string;
      // after the restart: the sweep left exactly what the records name, and every named file is there
      const named = await allNamed(url, token, colId);
      const expected = [...named].flatMap(([rec, files]) => files.map((f) => `${rec}/${f}`)).sort();
      expect(storedFiles()).toEqual(expected);
      expect(safeList(join(dir, 'upload-temp'))).toEqual([]);
      // every acknowledged record is there unless a delete of it was sent (its files may have been
      // replaced since by a write that reached the journal unanswered: their presence is checked above)
      const missing = [...tally.acked.keys()].filter((id) => !named.has(`${colId}/${id}`) && !tally.deleting.has(id));
      expect(missing).toEqual([]);
      checks++;
      if (k === KILLS) {
        child.proc.kill('SIGTERM');
        await child.exited;
        break;
      }
      const clients = Array.from({ length: WRITERS }, (_, w) => writer(url, token, `L${k}W${w}`, tally));
      await sleep(100 + ((k * 7919) % 200));
      await child.kill();
      await Promise.all(clients);
    }
    expect(tally.unexpected).toEqual([]);
    expect(checks).toBe(KILLS + 1);
    expect(tally.acked.size).toBeGreaterThan(KILLS);
  }, 120_000 * SOAK);

  it('the start-up sweep removes what a crash between the steps leaves, and keeps named files and thumbnails', async () => {
    const script = await bundle('test/fixtures/hardening-server.ts');
    const { child, url } = await start(script);
    const token = (await http(url, 'POST', '/api/collections/_superusers/auth-with-password', { body: { identity: 'admin@example.com', password: 'correct horse' } })).body.token as string;
    const res = await upload(url, 'POST', '/api/collections/docs/records', token, {}, [['files', 'keep.txt', 10]]);
    const rec = (await res.json()) as { id: string; collectionId: string; files: string[] };
    child.proc.kill('SIGTERM');
    await child.exited;
    const recDir = join(dir, 'storage', rec.collectionId, rec.id);
    // placed but never journaled (killed between the rename and the append), a half-received upload,
    // a thumbnail of a named file, a folder of a record and of a collection that do not exist
    writeFileSync(join(recDir, 'orphan_abcdefghij.txt'), 'x');
    mkdirSync(join(recDir, `thumbs_${rec.files[0]}`), { recursive: true });
    writeFileSync(join(recDir, `thumbs_${rec.files[0]}`, `100x100_${rec.files[0]}`), 't');
    mkdirSync(join(recDir, 'thumbs_gone.png'));
    mkdirSync(join(dir, 'upload-temp'), { recursive: true });
    writeFileSync(join(dir, 'upload-temp', 'partial'), 'x');
    mkdirSync(join(dir, 'storage', rec.collectionId, 'norecord123456'), { recursive: true });
    writeFileSync(join(dir, 'storage', rec.collectionId, 'norecord123456', 'x.txt'), 'x');
    mkdirSync(join(dir, 'storage', 'nocollection12'), { recursive: true });
    const again = await start(script);
    expect(safeList(recDir).sort()).toEqual([...rec.files, `thumbs_${rec.files[0]}`].sort());
    expect(safeList(join(recDir, `thumbs_${rec.files[0]}`))).toEqual([`100x100_${rec.files[0]}`]);
    expect(safeList(join(dir, 'upload-temp'))).toEqual([]);
    expect(safeList(join(dir, 'storage', rec.collectionId))).not.toContain('norecord123456');
    expect(safeList(join(dir, 'storage'))).not.toContain('nocollection12');
    await again.child.kill();
  });
});
