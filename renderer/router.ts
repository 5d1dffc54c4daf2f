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
  /** Programmatic moves (after a save, a delete) are not held by guards: the page asked for them. */
  navigate(to: string, opts?: { replace?: boolean }): void;
  /**
   * Holds links and back/forward while `holding()` is true (unsaved changes): the wanted hash lands in
   * `pending` for the page to confirm or cancel. Removed when the calling owner is disposed.
   */
  guard(holding: () => boolean): void;
  pending: Accessor<string | null>;
  proceed(): void;
  stay(): void;
}

export function createHashRouter(win: Window = window): Router {
  const [route, setRoute] = createSignal(parseHash(win.location.hash));
  const [pending, setPending] = createSignal<string | null>(null);
  const guards = new Set<() => boolean>();
  const held = () => [...guards].some((g) => g());
  // The hash the app shows, to put back when back/forward is held.
  let shown = win.location.hash;
  const show = () => {
    shown = win.location.hash;
    setRoute(parseHash(shown));
  };
  const onHashChange = () => {
    if (win.location.hash !== shown && held()) {
      const wanted = win.location.hash;
      win.history.replaceState(null, '', shown || '#/');
      setPending(wanted);
      return;
    }
    show();
  };
  // Capture phase: runs before the browser follows an in-app link, so it can hold it.
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target instanceof Element ? e.target.closest('a[href^="#"]') : null;
    const to = a?.getAttribute('href');
    if (!to || to === shown || a?.getAttribute('target') === '_blank' || !held()) return;
    e.preventDefault();
    setPending(to);
  };
  win.addEventListener('hashchange', onHashChange);
  win.document.addEventListener('click', onClick, true);
  onCleanup(() => {
    win.removeEventListener('hashchange', onHashChange);
    win.document.removeEventListener('click', onClick, true);
  });
  const navigate: Router['navigate'] = (to, opts) => {
    const target = to.startsWith('#') ? to : `#${to}`;
    if (opts?.replace) win.history.replaceState(null, '', target);
    else win.history.pushState(null, '', target);
    show();
  };
  return {
    route,
    navigate,
    guard(holding) {
      guards.add(holding);
      onCleanup(() => guards.delete(holding));
    },
    pending,
    proceed() {
      const to = pending();
      setPending(null);
      if (to !== null) navigate(to);
    },
    stay: () => setPending(null),
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
