// The signed-in screens' route table (renderer/routes.tsx): which page an address opens, with which params.
import { describe, expect, it } from 'vitest';
import { matchRoute, ROUTES } from '../../renderer/routes.js';
import { parseHash } from '../../renderer/router.js';

const open = (hash: string) => {
  const m = matchRoute(ROUTES, parseHash(hash).segments);
  return m && { path: m.route.path, params: m.params };
};

describe('route table', () => {
  it.each([
    ['#/sessions', '/sessions', {}],
    ['#/data', '/data', {}],
    ['#/new-collection', '/new-collection', {}],
    ['#/collections/posts', '/collections/:name/:tab?', { name: 'posts' }],
    ['#/collections/my%20posts/settings?filter=a', '/collections/:name/:tab?', { name: 'my posts', tab: 'settings' }],
    ['#/collections/posts/api/extra', '/collections/:name/:tab?', { name: 'posts', tab: 'api' }],
    ['#/sessions/old-link', '/sessions', {}],
  ])('%s opens %s', (hash, path, params) => expect(open(hash)).toEqual({ path, params }));

  // These the shell sends on to the first collection (or says "Page not found.").
  it.each(['', '#/', '#/collections', '#/login', '#/setup?token=abc', '#/nowhere'])('%s matches no page', (hash) => expect(open(hash)).toBeUndefined());
});
