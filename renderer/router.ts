// A tiny hash router: the server serves one page at /_/ and every screen lives in the hash
// (#/login, #/setup?token=..., #/collections/posts/settings), like PocketBase's dashboard.
import { createContext, createSignal, onCleanup, useContext, type Accessor } from 'solid-js';

export interface Route {
  /** Decoded path segments: `#/collections/posts` → ['collections', 'posts']. */
  segments: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [pathPart, queryPart = ''] = raw.split('?', 2);
  const segments = pathPart
    .split('/')
    .filter((s) => s !== '')
    .map((s) => safeDecode(s));
  return { segments, query: new URLSearchParams(queryPart) };
}

/** Builds `#/a/b?x=1` from segments, encoding each one. */
export function href(segments: string[], query?: Record<string, string>): string {
  const path = '#/' + segments.map((s) => encodeURIComponent(s)).join('/');
  const qs = query ? new URLSearchParams(query).toString() : '';
  return qs ? `${path}?${qs}` : path;
}

export interface Router {
  route: Accessor<Route>;
  navigate(to: string, opts?: { replace?: boolean }): void;
}

export function createHashRouter(win: Window = window): Router {
  const [route, setRoute] = createSignal(parseHash(win.location.hash));
  const onChange = () => setRoute(parseHash(win.location.hash));
  win.addEventListener('hashchange', onChange);
  onCleanup(() => win.removeEventListener('hashchange', onChange));
  return {
    route,
    navigate(to, opts) {
      const target = to.startsWith('#') ? to : `#${to}`;
      if (opts?.replace) win.history.replaceState(null, '', target);
      else win.history.pushState(null, '', target);
      onChange();
    },
  };
}

export const RouterContext = createContext<Router>();

export function useRouter(): Router {
  const router = useContext(RouterContext);
  if (!router) throw new Error('useRouter outside <RouterContext.Provider>');
  return router;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
