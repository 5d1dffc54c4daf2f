// A hook's mistakes cost only its own request: an exception is that request's error answer (logged with
// file and line), a hook looping forever is stopped at the time limit with its worker replaced, a throw
// inside a write rolls the whole write back, and /api/health keeps answering meanwhile (polled over its
// own socket every 50 ms: the server's event loop is this process's, so any stall shows as a late answer;
// each wait counted as the work this process made of it, health-poll.ts workWatch, not what a machine
// busy with others adds).
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { MAX_HEALTH_WAIT_MS, whilePolled } from '../fixtures/health-poll.js';
import { hooksFolder } from './support.js';

const logs: { level: string; message: string; data: Record<string, unknown> }[] = [];
const dir = hooksFolder({
  'loop.pb.js': `
onRecordCreateRequest((e) => {
  if (e.record.getString("title") === "loop") {
    while (true) {}
  }
  e.next();
}, "notes");
`,
  'throws.pb.js': `
onRecordCreate((e) => {
  const title = e.record.getString("title");
  if (title === "loop in write") {
    $app.save(new Record($app.findCollectionByNameOrId("notes"), { title: "saved before the loop" }));
    while (true) {}
  }
  if (title === "exit") process.exit(3);
  if (title === "throw") {
    null.boom();
  }
  if (title === "rollback") {
    // a record saved by the hook inside the same transaction, then a failure: neither is kept
    const other = new Record($app.findCollectionByNameOrId("notes"), { title: "saved by the hook" });
    $app.save(other);
    e.next();
    throw new BadRequestError("Rolled back after the save.");
  }
  e.next();
}, "notes");
`,
});

const sdk = sdkSuite({ hooksDir: dir, hooksTimeoutMs: 1500, hooksLogger: (entry) => logs.push(entry) });

describe('hook safety', () => {
  it('a hook looping forever is stopped at the limit, its request fails, health keeps answering, the next request is served', async () => {
    await sdk.admin.collections.create({ name: 'notes', type: 'base', createRule: '', listRule: '', viewRule: '', fields: [{ name: 'title', type: 'text' }] });
    const t0 = performance.now();
    const { result: err, longest } = await whilePolled(sdk.server.url, () => failure(sdk.client().collection('notes').create({ title: 'loop' })), process.pid);
    const ms = performance.now() - t0;
    console.log(`infinite-loop hook: answered ${err.status} after ${ms.toFixed(0)} ms, longest /api/health wait ${longest.toFixed(0)} ms`);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/onRecordCreateRequest hook ran past its time limit \(1500 ms\)/);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(longest).toBeLessThan(MAX_HEALTH_WAIT_MS);
    // the replaced worker (and the rest of the pool) serve the next requests
    for (let i = 0; i < 4; i++) expect((await sdk.client().collection('notes').create({ title: `after ${i}` })).title).toBe(`after ${i}`);
    expect(logs.some((l) => l.level === 'ERROR' && /time limit/.test(l.message))).toBe(true);
  });

  it('a hook looping inside a write is stopped, the write rolled back and the writer free again', async () => {
    const { result: err, longest } = await whilePolled(sdk.server.url, () => failure(sdk.client().collection('notes').create({ title: 'loop in write' })), process.pid);
    expect(err.message).toMatch(/hook ran past its time limit \(1500 ms\)/);
    expect(longest).toBeLessThan(MAX_HEALTH_WAIT_MS);
    const titles = (await sdk.admin.collection('notes').getFullList()).map((r) => r.title);
    expect(titles).not.toContain('saved before the loop');
    expect(titles).not.toContain('loop in write');
    // the single writer is free: writes with and without hooks go through
    expect((await sdk.client().collection('notes').create({ title: 'next write' })).title).toBe('next write');
    expect((await sdk.admin.collection('notes').update((await sdk.admin.collection('notes').getFirstListItem('title = "next write"')).id, { title: 'updated' })).title).toBe('updated');
  });

  it('a hook that ends its worker (process.exit) fails its request; the pool keeps serving', async () => {
    const err = await failure(sdk.client().collection('notes').create({ title: 'exit' }));
    expect(err.status).toBe(400);
    for (let i = 0; i < 4; i++) expect((await sdk.client().collection('notes').create({ title: `still ${i}` })).title).toBe(`still ${i}`);
    expect(sdk.server.hooks?.registrations.length).toBe(2);
  });

  it('an exception is a 400 for that request only, logged with the file and line', async () => {
    const { result: err, longest } = await whilePolled(sdk.server.url, () => failure(sdk.client().collection('notes').create({ title: 'throw' })), process.pid);
    expect(err.response).toEqual({ status: 400, message: 'Something went wrong while processing your request.', data: {} });
    expect(longest).toBeLessThan(MAX_HEALTH_WAIT_MS);
    const logged = logs.find((l) => l.level === 'ERROR' && /null/.test(l.message));
    expect(logged?.data).toMatchObject({ event: 'onRecordCreate', file: 'throws.pb.js', line: 10 });
    expect((await sdk.client().collection('notes').create({ title: 'fine' })).title).toBe('fine');
  });

  it('a throw after a save the hook made in the same write rolls both back', async () => {
    const err = await failure(sdk.client().collection('notes').create({ title: 'rollback' }));
    expect(err.response).toMatchObject({ status: 400, message: 'Rolled back after the save.' });
    const titles = (await sdk.admin.collection('notes').getFullList()).map((r) => r.title);
    expect(titles).not.toContain('rollback');
    expect(titles).not.toContain('saved by the hook');
  });
});
