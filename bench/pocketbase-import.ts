// Moving a PocketBase folder with files in: a pb_data built here (one collection, N records each
// naming one file of SIZE bytes), imported with the CLI's folder import (files copied and synced) and
// as a backup zip over HTTP (streamed to disk, extracted, files linked), each into a fresh data folder,
// with /api/health asked every 10 ms during the upload to show what other requests wait.
//
//   npx tsx bench/pocketbase-import.ts [--files 2000] [--size 20000]
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { createCore } from '../server/core/index.js';
import { startServer } from '../server/index.js';
import { loadSqlJs, openStore } from '../server/store/db.js';
import { pocketBaseDatabase } from './pocketbase-db.js';

const { values } = parseArgs({ options: { files: { type: 'string' }, size: { type: 'string' } } });
const N = Number(values.files ?? 2000);
const SIZE = Number(values.size ?? 20_000);
const ADMIN = { email: 'bench@example.com', password: 'bench password 1' };

/** pb_data with one collection `docs` (PocketBase's id pbc_1000000001) whose N records name one file each. */
async function pocketBaseFolder(dir: string): Promise<void> {
  const db = pocketBaseDatabase(await loadSqlJs(), { id: 'pbc_1000000001', name: 'docs', fields: [
    { id: 'text1', name: 'title', type: 'text', max: 0, min: 0, pattern: '' },
    { id: 'file1', name: 'doc', type: 'file', maxSelect: 1, maxSize: 0, mimeTypes: [], thumbs: [], protected: false },
  ] });
  const bytes = randomBytes(SIZE);
  db.run('BEGIN');
  for (let i = 0; i < N; i++) {
    const id = `r${String(i).padStart(14, '0')}`;
    const name = `doc_${String(i).padStart(10, '0')}.bin`;
    db.run('INSERT INTO docs VALUES (?,?,?)', [id, `doc ${i}`, name]);
    await mkdir(join(dir, 'storage', 'pbc_1000000001', id), { recursive: true });
    await writeFile(join(dir, 'storage', 'pbc_1000000001', id, name), bytes);
  }
  db.run('COMMIT');
  await writeFile(join(dir, 'data.db'), db.export());
  db.close();
}

async function zipOf(dir: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addFile(join(dir, 'data.db'), 'data.db');
  for (let i = 0; i < N; i++) {
    const id = `r${String(i).padStart(14, '0')}`;
    const name = `doc_${String(i).padStart(10, '0')}.bin`;
    zip.addFile(join(dir, 'storage', 'pbc_1000000001', id, name), `storage/pbc_1000000001/${id}/${name}`, { compress: false });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

const root = await mkdtemp(join(tmpdir(), 'deskbase-bench-pb-'));
try {
  const pbData = join(root, 'pb_data');
  await pocketBaseFolder(pbData);
  console.log(`pb_data: ${N.toLocaleString('en')} records, one ${(SIZE / 1000).toFixed(0)} kB file each (${((N * SIZE) / 2 ** 20).toFixed(0)} MiB)`);

  const store = await openStore({ dir: join(root, 'cli') });
  try {
    const core = await createCore(store);
    const t0 = performance.now();
    const r = await core.transfer.importPocketBaseFolder(pbData);
    console.log(`folder import (CLI, copies synced): ${((performance.now() - t0) / 1000).toFixed(2)} s, ${r.records.find((x) => x.collection === 'docs')?.files} files`);
  } finally {
    await store.close();
  }

  const zip = await zipOf(pbData);
  const server = await startServer({ dir: join(root, 'http'), port: 0, uiDir: null, log: () => undefined });
  try {
    await fetch(`${server.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: await server.setupToken(), ...ADMIN }) });
    const auth = await fetch(`${server.url}/api/collections/_superusers/auth-with-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: ADMIN.email, password: ADMIN.password }) });
    const { token } = (await auth.json()) as { token: string };
    let done = false;
    const waits: number[] = [];
    const health = (async () => {
      while (!done) {
        const t = performance.now();
        await fetch(`${server.url}/api/health`).then((res) => res.arrayBuffer());
        waits.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/import/pocketbase`, { method: 'POST', headers: { authorization: token }, body: new Uint8Array(zip) });
    const body = (await res.json()) as { records?: { collection: string; files: number }[]; message?: string };
    const ms = performance.now() - t0;
    done = true;
    await health;
    waits.sort((a, b) => a - b);
    console.log(`backup zip over HTTP (${(zip.length / 2 ** 20).toFixed(0)} MiB, streamed, extracted, linked): ${(ms / 1000).toFixed(2)} s, status ${res.status}, ${body.records?.find((x) => x.collection === 'docs')?.files ?? body.message} files`);
    console.log(`  /api/health meanwhile: ${waits.length} answers, p50 ${waits[Math.floor(waits.length / 2)]?.toFixed(1)} ms, max ${waits[waits.length - 1]?.toFixed(0)} ms`);
  } finally {
    await server.close();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
