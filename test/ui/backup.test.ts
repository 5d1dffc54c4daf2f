// The backup download through the api client: GET /api/backup with the bearer token, the file's bytes
// as a Blob and the name the server suggests; errors as ApiError like every other call.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createApi, storageTokenStore } from '../../renderer/api.js';
import { filenameFromDisposition, saveBlob } from '../../renderer/lib/save-file.js';
import { formatBytes } from '../../renderer/lib/format.js';
import { startTestServer, type TestServer } from './test-server.js';

const TOKEN = 'b'.repeat(43);
// The first bytes of every SQLite file, then some filler standing in for pages.
const SQLITE = new Uint8Array([...new TextEncoder().encode('SQLite format 3\0'), ...new Array<number>(4080).fill(7)]);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer((req) => {
    if (req.url !== '/api/backup') return { status: 404, body: { status: 404, message: 'Not found.', data: {} } };
    if (req.authorization !== `Bearer ${TOKEN}`)
      return { status: 403, body: { status: 403, message: 'Only superusers can perform this action.', data: {} } };
    return {
      status: 200,
      raw: SQLITE,
      headers: { 'content-type': 'application/vnd.sqlite3', 'content-disposition': 'attachment; filename="deskbase-2025-03-04T05-06-07-000Z.db"' },
    };
  });
});
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  server.seen.length = 0;
});

const client = () => createApi({ baseUrl: server.baseUrl, store: storageTokenStore(localStorage) });

describe('downloadBackup', () => {
  it('fetches GET /api/backup with the bearer token and returns the SQLite bytes with the server’s file name', async () => {
    localStorage.setItem('deskbase.token', TOKEN);
    const file = await client().downloadBackup();
    expect(server.seen).toMatchObject([{ method: 'GET', url: '/api/backup', authorization: `Bearer ${TOKEN}` }]);
    expect(file.filename).toBe('deskbase-2025-03-04T05-06-07-000Z.db');
    const bytes = new Uint8Array(await file.blob.arrayBuffer());
    expect(bytes.byteLength).toBe(SQLITE.byteLength);
    expect(new TextDecoder().decode(bytes.slice(0, 15))).toBe('SQLite format 3');
  });

  it('throws the envelope as an ApiError when the caller is not a superuser', async () => {
    localStorage.setItem('deskbase.token', 'not-a-superuser');
    const err = await client().downloadBackup().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, message: 'Only superusers can perform this action.' });
  });
});

describe('filenameFromDisposition', () => {
  it.each([
    ['attachment; filename="deskbase.db"', 'deskbase.db'],
    ['attachment; filename=plain.db', 'plain.db'],
    ["attachment; filename=\"fallback.db\"; filename*=UTF-8''caf%C3%A9.db", 'café.db'],
    ['attachment; filename="../../etc/passwd"', 'passwd'],
    ['attachment; filename="C:\\Users\\x\\evil.db"', 'evil.db'],
    ['attachment', undefined],
    ['attachment; filename=""', undefined],
    [null, undefined],
  ])('%s → %s', (header, expected) => expect(filenameFromDisposition(header)).toBe(expected));
});

describe('saveBlob', () => {
  it('clicks a hidden <a download> pointing at an object URL, then removes it', () => {
    const clicked: Array<{ href: string; download: string }> = [];
    const onClick = (e: Event) => {
      const a = e.target as HTMLAnchorElement;
      clicked.push({ href: a.href, download: a.download });
      e.preventDefault();
    };
    document.addEventListener('click', onClick);
    try {
      saveBlob(new Blob([SQLITE]), 'backup.db');
    } finally {
      document.removeEventListener('click', onClick);
    }
    expect(clicked).toHaveLength(1);
    expect(clicked[0].download).toBe('backup.db');
    expect(clicked[0].href).toMatch(/^blob:/);
    expect(document.querySelector('a[download]')).toBeNull();
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KB'],
    [4096 + 512, '4.5 KB'],
    [20 * 1024 * 1024, '20 MB'],
    [3 * 1024 ** 3, '3.0 GB'],
  ])('%d → %s', (n, expected) => expect(formatBytes(n)).toBe(expected));
});
