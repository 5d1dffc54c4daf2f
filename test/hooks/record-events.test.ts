// Record event hooks through the official SDK over a real socket: a pb_hooks folder as PocketBase's docs
// write it, loaded by startServer({ hooksDir }).
import { describe, expect, it } from 'vitest';
import { failure, sdkSuite } from '../support/sdk-server.js';
import { hooksFolder } from './support.js';

const logs: string[] = [];
const dir = hooksFolder({
  'main.pb.js': `
onRecordCreate((e) => {
  e.record.set("slug", e.record.getString("title").toLowerCase().replace(/\\s+/g, "-"));
  e.next();
  // after e.next() the record is saved: it has its id
  $app.logger().info("created", "id", e.record.id);
}, "posts");

onRecordCreate((e) => {
  if (e.record.getString("title") === "boom") throw new BadRequestError("No booms here.", { title: { code: "boom", message: "Boom." } });
  if (e.record.getString("title") === "plain") throw new Error("plain failure");
  e.next();
}, "posts");

onRecordCreateRequest((e) => {
  e.record.set("note", "from " + (e.auth ? e.auth.collection().name : "guest"));
  e.next();
}, "posts");
`,
});

const sdk = sdkSuite({ hooksDir: dir, hooksLogger: (entry) => logs.push(`${entry.level} ${entry.message} ${JSON.stringify(entry.data)}`) });

describe('record event hooks', () => {
  it('a hook sets a field before e.next() and sees the saved record after it', async () => {
    await sdk.admin.collections.create({ name: 'posts', type: 'base', createRule: '', viewRule: '', listRule: '', fields: [{ name: 'title', type: 'text' }, { name: 'slug', type: 'text' }, { name: 'note', type: 'text' }] });
    const created = await sdk.client().collection('posts').create({ title: 'Hello World' });
    expect(created.slug).toBe('hello-world');
    expect(created.note).toBe('from guest');
    expect(logs.some((l) => l.includes('created') && l.includes(created.id))).toBe(true);
  });

  it('an ApiError thrown by a hook is the answer, nothing is stored', async () => {
    const err = await failure(sdk.client().collection('posts').create({ title: 'boom' }));
    expect(err.status).toBe(400);
    expect(err.response).toEqual({ status: 400, message: 'No booms here.', data: { title: { code: 'boom', message: 'Boom.' } } });
    expect((await sdk.admin.collection('posts').getList(1, 50, { filter: 'title = "boom"' })).totalItems).toBe(0);
  });

  it('any other thrown error is a 400 with the generic message, logged with file and line', async () => {
    const err = await failure(sdk.client().collection('posts').create({ title: 'plain' }));
    expect(err.response).toEqual({ status: 400, message: 'Something went wrong while processing your request.', data: {} });
    expect(logs.some((l) => l.includes('plain failure') && l.includes('main.pb.js') && l.includes('"line":11'))).toBe(true);
  });
});
