// The signed-in layout: sidebar of collections and the page the hash route picks from the route table
// (renderer/routes.tsx).
import { createEffect, createMemo, createResource, createSignal, onCleanup, onMount, Show, untrack, type Accessor, type JSX } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import type { Api, SessionInfo } from '../api.js';
import { AppContext, type AppCtx } from '../app-context.js';
import { parseHash, useRouter } from '../router.js';
import { useToast } from '../components/toasts.js';
import { Sidebar } from '../components/sidebar.js';
import { Icon } from '../components/icon.js';
import { matchRoute, ROUTES } from '../routes.js';
import { createLanSharing, desktopBridge, DesktopContext, type DesktopCtx } from '../desktop.js';
import { LanBanner } from '../components/lan-banner.js';
import { useLive } from '../lib/live.js';

export function Shell(props: { api: Api; session: Accessor<SessionInfo | null>; onSignedOut(): void }): JSX.Element {
  // the app's one client (App makes it once): read once, as every page reaches it through the context
  const api = untrack(() => props.api);
  const router = useRouter();
  const toast = useToast();
  const [collections, { refetch }] = createResource(async () => {
    const page = await api.listCollections();
    return [...page.items].sort((a, b) => a.name.localeCompare(b.name));
  });
  // collections another client creates, renames or deletes appear in the sidebar (a superuser topic)
  useLive(api, () => ['_collections/*'], () => void refetch());
  const [menuOpen, setMenuOpen] = createSignal(false);
  let menuButton: HTMLButtonElement | undefined;
  // The slide-out menu (narrow windows) closes on Escape like any overlay, and hands focus back to its
  // button; an open dialog or panel above it takes the key first (they stop it on their own).
  const onMenuKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !menuOpen() || e.defaultPrevented) return;
    setMenuOpen(false);
    menuButton?.focus();
  };
  onMount(() => document.addEventListener('keydown', onMenuKey));
  onCleanup(() => document.removeEventListener('keydown', onMenuKey));
  // Only the desktop window has the bridge; LAN state lives here so the warning shows on every page.
  const bridge = desktopBridge();
  const desktop: DesktopCtx | undefined = bridge ? { bridge, lan: createLanSharing(bridge) } : undefined;

  const ctx: AppCtx = {
    api,
    session: () => props.session(),
    collections,
    reloadCollections: async () => (await refetch()) ?? undefined,
    findCollection: (key) => collections()?.find((c) => c.name === key || c.id === key),
    async signOut() {
      try {
        await api.signOut();
      } catch {
        // Signed out locally either way; the server may already have ended the session.
      }
      toast('Signed out.', 'info');
      props.onSignedOut();
    },
  };

  const seg = (i: number) => router.route().segments[i];
  // The page is the route table's (routes.tsx): it stays mounted while only its params change.
  const matched = createMemo(() => matchRoute(ROUTES, router.route().segments));
  const params = () => matched()?.params ?? {};

  // Coming back to the window checks the session (it may have been revoked meanwhile): api.ts turns a
  // null answer into the sign-in page, before the user acts on a page that would only say "forbidden".
  let checked = 0;
  const checkSession = () => {
    if (document.visibilityState !== 'visible' || Date.now() - checked < 5000) return;
    checked = Date.now();
    api.getSession().catch(() => undefined);
  };
  onMount(() => {
    window.addEventListener('focus', checkSession);
    document.addEventListener('visibilitychange', checkSession);
  });
  onCleanup(() => {
    window.removeEventListener('focus', checkSession);
    document.removeEventListener('visibilitychange', checkSession);
  });

  // A collection the list does not know (created elsewhere since it loaded) reloads the list once before
  // the page says "not found".
  const [refreshedFor, setRefreshedFor] = createSignal<string | null>(null);
  createEffect(() => {
    const name = seg(0) === 'collections' ? seg(1) : undefined;
    if (!name || collections.loading || !collections() || ctx.findCollection(name) || refreshedFor() === name) return;
    setRefreshedFor(name);
    void refetch();
  });
  // "#/" or "#/collections" → the first user collection, so the app opens on data.
  createEffect(() => {
    const list = collections();
    if (!list) return;
    const s = router.route().segments;
    // a hash newer than the router's (a link or address typed while the list loaded; its hashchange
    // not yet heard) is the user's: it decides, not this redirect (which replaced it)
    if (parseHash(window.location.hash).segments.join('/') !== s.join('/')) return;
    if (s.length === 0 || (s[0] === 'collections' && !s[1]) || s[0] === 'login' || s[0] === 'setup') {
      const first = list.find((c) => !c.system);
      router.navigate(first ? `#/collections/${encodeURIComponent(first.name)}` : '#/new-collection', { replace: true });
    }
  });

  return (
    <AppContext.Provider value={ctx}>
      <DesktopContext.Provider value={desktop}>
        <div class="shell" classList={{ 'menu-open': menuOpen() }}>
          <Sidebar onNavigate={() => setMenuOpen(false)} />
          <div class="scrim" onClick={() => setMenuOpen(false)} />
          <div class="main-column">
            <div class="mobile-bar">
              <button type="button" class="btn-icon" aria-label="Open menu" aria-expanded={menuOpen()} ref={menuButton} onClick={() => setMenuOpen(true)}>
                <Icon name="menu" />
              </button>
              <span class="brand-title">Deskbase</span>
            </div>
            <Show when={desktop}>{(d) => <LanBanner lan={d().lan} />}</Show>
            <main class="main">
              <Show when={matched()?.route} keyed fallback={<div class="page"><p class="muted">Page not found.</p></div>}>
                {(route) => <Dynamic component={route.component} params={params()} />}
              </Show>
            </main>
          </div>
        </div>
      </DesktopContext.Provider>
    </AppContext.Provider>
  );
}
