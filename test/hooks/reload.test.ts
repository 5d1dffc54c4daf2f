// Reload on change (PocketBase's --hooksWatch): a changed hook file is loaded into new workers, then
// swapped in, while requests keep arriving: none is dropped or fails, each is served by the old hooks
// or the new ones; a file that no longer loads keeps the hooks that run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';

const version = (v: string) => `
onRecordCreate((e) => {
  e.record.set("version", "${v}");
  e.next();
}, "docs");
`;
const dir = hooksFolder({ 'main.pb.js': version('v1') });
const logs: string[] = [];
const sdk = sdkSuite({ hooksDir: dir, hooksWatch: true, hooksLogger: (entry) => logs.push(entry.message) });

describe('hooks reload on change', () => {
  it('a changed file takes over without a request dropped; a broken one keeps the running hooks', async () => {
    await sdk.admin.collections.create({ name: 'docs', type: 'base', createRule: '', fields: [{ name: 'version', type: 'text' }] });
    expect((await sdk.client().collection('docs').create({})).version).toBe('v1');
    const seen: string[] = [];
    const failures: unknown[] = [];
    let stop = false;
    // four clients creating records all along
    const clients = [0, 1, 2, 3].map(async () => {
      const pb = sdk.client();
      while (!stop) {
        try {
          seen.push((await pb.collection('docs').create({})).version);
        } catch (err) {
          failures.push(err);
        }
      }
    });
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(join(dir, 'main.pb.js'), version('v2'));
    const t0 = Date.now();
    while (!seen.includes('v2') && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    expect(seen.length).toBeGreaterThan(10);
    // old, then new: once v2 answered, v1 never again (requests started before the swap may still finish on v1)
    const firstV2 = seen.indexOf('v2');
    expect(firstV2).toBeGreaterThan(0);
    expect(seen.slice(firstV2 + 8).every((v) => v === 'v2')).toBe(true);
    expect(logs.some((l) => /pb_hooks reloaded/.test(l))).toBe(true);

    // a file with a syntax error: logged, the v2 hooks keep running
    writeFileSync(join(dir, 'main.pb.js'), 'onRecordCreate((e) => {');
    const t1 = Date.now();
    while (!logs.some((l) => /not reloaded/.test(l)) && Date.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((l) => /pb_hooks not reloaded/.test(l))).toBe(true);
    expect((await sdk.client().collection('docs').create({})).version).toBe('v2');
  });
});
