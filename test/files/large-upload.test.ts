// A 200 MB upload streams to disk: a server in a child process keeps its RSS growth under 50 MB while
// receiving it (sampled from /proc during the upload), and an upload over its field's maxSize is refused
// without the disk ever holding more than the limit. Prints the throughput and the RSS figures.
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, runChild, type Child } from '../fixtures/hardening-child.js';
import { http, setupSuperuser } from '../fixtures/hardening-http.js';
import { generatedUpload } from '../support/generated-upload.js';

const MB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'deskbase-large-'));
let child: Child | null = null;
afterAll(async () => {
  await child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

function tempBytes(): number {
  try {
    return readdirSync(join(dir, 'upload-temp')).reduce((n, f) => n + statSync(join(dir, 'upload-temp', f)).size, 0);
  } catch {
    return 0;
  }
}

describe('large uploads', () => {
  it('receives 200 MB with under 50 MB of RSS growth, and refuses an over-size file without filling the disk', async () => {
    const script = await bundle('test/fixtures/hardening-server.ts');
    child = runChild(script, [dir, String(64 * MB)]);
    const url = (await child.line((l) => l.startsWith('url '))).slice(4);
    const su = await setupSuperuser(url, (await child.line((l) => l.startsWith('setup '))).slice(6));
    const created = await http(url, 'POST', '/api/collections', {
      token: su, body: { name: 'big', fields: [{ name: 'blob', type: 'file', maxSize: 250 * MB }, { name: 'small', type: 'file', maxSize: MB }] },
    });
    expect(created.status, created.text).toBe(200);
    const pid = child.proc.pid!;
    // warm up the paths the upload takes, so the baseline holds the code and buffers they load
    const warm = generatedUpload('blob', 2 * MB);
    expect((await fetch(`${url}/api/collections/big/records`, { method: 'POST', body: warm.body, headers: { 'content-type': warm.type, authorization: su }, duplex: 'half' } as RequestInit)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const baseline = rssOf(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10);
    const size = 200 * MB;
    const upload = generatedUpload('blob', size);
    const t0 = performance.now();
    const res = await fetch(`${url}/api/collections/big/records`, { method: 'POST', body: upload.body, headers: { 'content-type': upload.type, authorization: su }, duplex: 'half' } as RequestInit);
    const ms = performance.now() - t0;
    clearInterval(sampler);
    const rec = (await res.json()) as { id: string; collectionId: string; blob: string };
    expect(res.status).toBe(200);
    expect(statSync(join(dir, 'storage', rec.collectionId, rec.id, rec.blob)).size).toBe(size);
    const growth = peak - baseline;
    console.log(`large upload: 200 MB in ${Math.round(ms)} ms (${Math.round((size / MB) / (ms / 1000))} MB/s), RSS ${Math.round(baseline / MB)} MB before, peak growth ${(growth / MB).toFixed(1)} MB`);
    expect(growth).toBeLessThan(50 * MB);

    // over-size: the file part is cut off at the limit, the rest is read and dropped
    let maxTemp = 0;
    const watch = setInterval(() => (maxTemp = Math.max(maxTemp, tempBytes())), 5);
    const over = generatedUpload('small', 40 * MB);
    const refused = await fetch(`${url}/api/collections/big/records`, { method: 'POST', body: over.body, headers: { 'content-type': over.type, authorization: su }, duplex: 'half' } as RequestInit);
    clearInterval(watch);
    const body = (await refused.json()) as { data: { small?: { code: string } } };
    expect(refused.status).toBe(400);
    expect(body.data.small?.code).toBe('validation_file_size_limit');
    expect(maxTemp).toBeLessThanOrEqual(MB);
    expect(tempBytes()).toBe(0);

    // a declared length past every file field's maxSize × maxSelect plus 32 MiB: a 413 before any byte is stored
    const huge = await fetch(`${url}/api/collections/big/records`, { method: 'POST', body: 'x', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(400 * MB), authorization: su } }).catch(() => null);
    if (huge) expect(huge.status).toBe(413);
  }, 120_000);
});
