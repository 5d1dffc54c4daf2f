// Files on both engines, measured: upload and download of a 1 MiB and a 100 MiB file through a server in
// a child process (the desktop engine on a data folder; a team server node on PostgreSQL, its files in
// the database), with the server's RSS sampled from /proc while the 100 MiB file goes in and out: it
// grows by less than 88 MiB on either engine (under the file: it is streamed, never held whole; what it
// grows by is buffers the collector has not taken back yet: the desktop 15-18 MiB, the team server's
// upload 52-60 MiB on a quiet machine and 68 MiB once in a CI run under full load). Prints the figures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { describePostgres, freshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { generatedUpload } from '../support/generated-upload.js';

const MB = 1024 * 1024;
const children: Child[] = [];
const dirs: string[] = [];
const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const c of children) await c.kill();
  for (const d of databases) await d.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** Runs `work` while sampling the RSS of `pid` every 10 ms; the peak growth over the RSS before. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; growth: number; ms: number }> {
  const baseline = rssOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10);
  const t0 = performance.now();
  try {
    const result = await work();
    return { result, growth: peak - baseline, ms: performance.now() - t0 };
  } finally {
    clearInterval(sampler);
  }
}

async function measure(engine: 'desktop' | 'team'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `deskbase-measure-${engine}-`));
  dirs.push(dir);
  const args = [dir];
  if (engine === 'team') {
    const db = await freshDatabase('files_measure');
    databases.push(db);
    args.push(db.url);
  }
  const child = runChild(await bundle('test/fixtures/files-node.ts'), args);
  children.push(child);
  const url = (await child.line((l) => l.startsWith('url '))).slice(4);
  const su = await setupSuperuser(url, (await child.line((l) => l.startsWith('setup '))).slice(6));
  const created = await http(url, 'POST', '/api/collections', { token: su, body: { name: 'big', fields: [{ name: 'blob', type: 'file', maxSize: 110 * MB }], viewRule: '' } });
  expect(created.status, created.text).toBe(200);
  const pid = child.proc.pid!;
  const upload = async (size: number) => {
    const part = generatedUpload('blob', size);
    const res = await fetch(`${url}/api/collections/big/records`, { method: 'POST', body: part.body, headers: { 'content-type': part.type, authorization: su }, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(200);
    return (await res.json()) as { id: string; blob: string };
  };
  const download = async (rec: { id: string; blob: string }, size: number) => {
    const res = await fetch(`${url}/api/files/big/${rec.id}/${rec.blob}`);
    expect(res.status).toBe(200);
    let got = 0;
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) got += part.length;
    expect(got).toBe(size);
  };
  // warm up the paths both take, so the baseline holds the code and buffers they load
  await download(await upload(2 * MB), 2 * MB);
  await new Promise((r) => setTimeout(r, 200));
  const line: string[] = [];
  for (const size of [MB, 100 * MB]) {
    const up = await sampled(pid, () => upload(size));
    const down = await sampled(pid, () => download(up.result, size));
    const label = `${size / MB} MiB`;
    line.push(`${label}: upload ${Math.round(up.ms)} ms, download ${Math.round(down.ms)} ms (RSS growth ${(up.growth / MB).toFixed(1)} / ${(down.growth / MB).toFixed(1)} MiB)`);
    if (size > MB) {
      // a file held whole would grow RSS past its 100 MiB (on the team server twice that: its chunks go
      // and come as hex text); streamed, growth stays under it. RSS frees lazily after GC, so the bound
      // leaves room for what a loaded machine's collector has not taken back yet: on the team server 68 MiB
      // was seen for an upload and 73 MiB for a download under a full run's load
      expect(up.growth, `${engine} ${label} upload RSS growth`).toBeLessThan(88 * MB);
      expect(down.growth, `${engine} ${label} download RSS growth`).toBeLessThan(88 * MB);
    }
  }
  return `${engine}: ${line.join('; ')}`;
}

describePostgres('files measured on both engines', () => {
  it('a 1 MiB and a 50 MiB file, up and down, with bounded memory', async () => {
    const figures = [await measure('desktop'), await measure('team')];
    console.log(`files measured:\n  ${figures.join('\n  ')}`);
  }, 180_000);
});
