// GET /api/collections/types.ts: the generated declarations compile with the TypeScript compiler
// (in process) against the pocketbase SDK, and type what they should: select unions, relations,
// expand shapes with back-relations, and `pb.collection('posts')` (a wrong field name fails to compile).
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { eachSuperuser, type Harness } from '../support/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Compiles virtual files placed in the repository (so `pocketbase` resolves from node_modules). */
function compile(files: Record<string, string>): string[] {
  const paths = Object.fromEntries(Object.entries(files).map(([name, text]) => [join(ROOT, '.typed-client-check', name), text]));
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, types: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, lang, ...rest) => (name in paths ? ts.createSourceFile(name, paths[name], lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists;
  host.fileExists = (name) => name in paths || fileExists(name);
  const dirExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => dir === join(ROOT, '.typed-client-check') || (dirExists?.(dir) ?? true);
  const readFile = host.readFile;
  host.readFile = (name) => paths[name] ?? readFile(name);
  const program = ts.createProgram(Object.keys(paths), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.split('/').pop()}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('typed clients', () => {
  let h: Harness;
  let su: string;
  eachSuperuser((fresh, token) => ((h = fresh), (su = token)));

  it('is for superusers only', async () => {
    expect((await h.req('GET', '/api/collections/types.ts')).status).toBe(401);
  });

  it('generates declarations that compile against the SDK and type each collection', async () => {
    const users = (await h.req('GET', '/api/collections/users', { token: su })).body;
    const posts = await h.req('POST', '/api/collections', { token: su, body: {
      name: 'blog_posts',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'status', type: 'select', values: ['draft', 'published'], maxSelect: 1 },
        { name: 'labels', type: 'select', values: ['a', "it's"], maxSelect: 2 },
        { name: 'author', type: 'relation', collectionId: users.id, maxSelect: 1 },
        { name: 'views', type: 'number' },
        { name: 'where', type: 'geoPoint' },
        { name: 'notes', type: 'text', hidden: true },
        { name: '1st', type: 'bool' },
        { name: 'cover', type: 'file', maxSelect: 1 },
        { name: 'scans', type: 'file', maxSelect: 3 },
      ],
    } });
    expect(posts.status, posts.text).toBe(200);
    const comments = await h.req('POST', '/api/collections', { token: su, body: { name: 'comments', fields: [{ name: 'post', type: 'relation', collectionId: posts.body.id, maxSelect: 1 }, { name: 'body', type: 'editor' }] } });
    expect(comments.status, comments.text).toBe(200);

    const r = await h.req('GET', '/api/collections/types.ts', { token: su });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const types = r.text;
    expect(types).toContain(`status: "draft" | "published" | '';`);
    expect(types).toContain('comments_via_post?: CommentsRecord[];');
    expect(types).toContain('  cover: string;\n  scans: string[];');
    expect(types).not.toMatch(/password/);

    const use = `
import PocketBase from 'pocketbase';
import type { TypedPocketBase, BlogPostsRecord, CollectionName } from './types';
const pb = new PocketBase('http://127.0.0.1:8090') as TypedPocketBase;
export async function read(): Promise<void> {
  const post = await pb.collection('blog_posts').getOne('abc', { expand: 'author,comments_via_post' });
  const title: string = post.title;
  const status: 'draft' | 'published' | '' = post.status;
  const labels: Array<'a' | "it's"> = post.labels;
  const lat: number = post.where.lat;
  const first: boolean = post['1st'];
  const notes: string | undefined = post.notes;
  const cover: string = post.cover;
  const scans: string[] = post.scans;
  const email: string | undefined = post.expand?.author?.email;
  const bodies: string[] | undefined = post.expand?.comments_via_post?.map((c) => c.body);
  const list = await pb.collection('comments').getList(1, 20);
  const postId: string = list.items[0].post;
  const name: CollectionName = 'users';
  const any = await pb.collection('anything').getOne('x');
  void [title, status, labels, lat, first, notes, cover, scans, email, bodies, postId, name, any.whatever];
  // @ts-expect-error a multiple file field is a list of names
  const one: string = post.scans;
  void one;
  // @ts-expect-error no such field
  void post.nope;
  // @ts-expect-error not one of the select's values
  const wrong: BlogPostsRecord['status'] = 'archived';
  void wrong;
}
`;
    expect(compile({ 'types.ts': types, 'use.ts': use })).toEqual([]);
  }, 60_000);
});
