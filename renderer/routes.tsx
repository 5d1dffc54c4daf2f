// The signed-in screens as a table: an address's path picks a page, `:name` segments become its params.
// Sessions, Settings, Data, Logs and Crons are lazy: their code loads on first visit. A collection's pages (the screen the app
// opens on) and the new-collection editor (the same editor as a collection's Settings tab) load up front.
import { lazy, Show, type Component, type JSX } from 'solid-js';
import { CollectionEditor } from './pages/collection-editor.js';
import { useApp } from './app-context.js';
import { CollectionPage } from './pages/collection-page.js';

export type RouteParams = Record<string, string | undefined>;

export interface RouteDef {
  /**
   * Literal segments and `:param`s; `:param?` may be absent. An address matches when its first
   * segments do (later ones are ignored, so an old or hand-typed link still finds its page).
   */
  path: string;
  component: Component<{ params: RouteParams }>;
}

/** The first route of `table` that `segments` (decoded, router.ts) match, with its params. */
export function matchRoute(table: readonly RouteDef[], segments: readonly string[]): { route: RouteDef; params: RouteParams } | undefined {
  for (const route of table) {
    const params: RouteParams = {};
    const parts = route.path.split('/').filter((p) => p !== '');
    const ok = parts.every((part, i) => {
      const seg = segments[i];
      if (part.startsWith(':')) {
        const optional = part.endsWith('?');
        if (seg === undefined) return optional;
        params[part.slice(1, optional ? -1 : undefined)] = seg;
        return true;
      }
      return seg === part;
    });
    if (ok) return { route, params };
  }
  return undefined;
}

/** A collection by name or id; the collections still loading, a spinner; an unknown one, "not found". */
function CollectionRoute(props: { params: RouteParams }): JSX.Element {
  const app = useApp();
  const name = () => props.params.name ?? '';
  return (
    <Show when={app.collections() && !(app.collections.loading && !app.findCollection(name()))} fallback={<div class="page"><div class="spinner" /></div>}>
      <Show when={app.findCollection(name())} keyed fallback={<div class="page"><p class="alert alert-error">Collection “{name()}” not found.</p></div>}>
        {(c) => <CollectionPage collection={c} tab={props.params.tab} />}
      </Show>
    </Show>
  );
}

const SessionsPage = lazy(() => import('./pages/sessions.js').then((m) => ({ default: m.SessionsPage })));
const SettingsPage = lazy(() => import('./pages/settings.js').then((m) => ({ default: m.SettingsPage })));
const DataPage = lazy(() => import('./pages/data.js').then((m) => ({ default: m.DataPage })));
const LogsPage = lazy(() => import('./pages/logs.js').then((m) => ({ default: m.LogsPage })));
const CronsPage = lazy(() => import('./pages/crons.js').then((m) => ({ default: m.CronsPage })));

export const ROUTES: readonly RouteDef[] = [
  { path: '/sessions', component: () => <SessionsPage /> },
  { path: '/data', component: () => <DataPage /> },
  { path: '/settings', component: () => <SettingsPage /> },
  { path: '/logs', component: () => <LogsPage /> },
  { path: '/crons', component: () => <CronsPage /> },
  { path: '/new-collection', component: () => <div class="page"><CollectionEditor /></div> },
  { path: '/collections/:name/:tab?', component: CollectionRoute },
];
