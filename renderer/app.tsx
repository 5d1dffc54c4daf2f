// The root: a mailed link's page or the OAuth2 redirect's (pages/confirm.tsx, no sign-in needed), first-run setup, sign-in, or the
// signed-in shell, decided by GET /setup and GET /session.
import { createResource, createSignal, Match, Switch, untrack, type JSX } from 'solid-js';
import type { Api, SessionInfo } from './api.js';
import { ApiError, messageOf } from './api.js';
import { createHashRouter, RouterContext } from './router.js';
import { ToastProvider } from './components/toasts.js';
import { SetupPage } from './pages/setup.js';
import { LoginPage } from './pages/login.js';
import { Shell } from './pages/shell.js';
import { ConfirmPage, isConfirmAction, isOAuth2RedirectPage, OAuth2RedirectPage } from './pages/confirm.js';
import { createTheme, ThemeContext } from './lib/theme.js';
import { desktopBridge } from './desktop.js';

type Boot = 'setup' | 'ready';

export function App(props: { makeApi(onUnauthorized: () => void): Api }): JSX.Element {
  const router = createHashRouter();
  const [session, setSession] = createSignal<SessionInfo | null>(null);
  // The session ended under a signed-in page (revoked elsewhere, expired): sign-in shows in its place and
  // the address stays, so signing in again lands on the same page (api.ts decides when it ended).
  const [ended, setEnded] = createSignal(false);
  const onUnauthorized = () => {
    if (session()) setEnded(true);
    setSession(null);
  };
  // the one client of this app's life: made once, not again when the prop changes
  const api = untrack(() => props.makeApi(onUnauthorized));

  const [boot, { refetch }] = createResource<Boot>(async () => {
    const setup = await api.setupStatus();
    if (setup.required) return 'setup';
    if (api.token()) {
      const current = await api.getSession();
      if (current && current.record?.collectionName === '_superusers') setSession(current);
      else if (current) await api.signOut();
      else api.setToken(null);
    }
    return 'ready';
  });

  const signedIn = async () => {
    setEnded(false);
    setSession(await api.getSession());
    const r = router.route();
    if (r.segments[0] === 'setup' || r.segments[0] === 'login') router.navigate('#/collections', { replace: true });
  };

  const setUp = async () => {
    await refetch();
    await signedIn();
  };

  const theme = createTheme(desktopBridge());
  return (
    <ThemeContext.Provider value={theme}>
      <RouterContext.Provider value={router}>
        <ToastProvider>
          <Switch>
            <Match when={router.route().segments[0] === 'auth' && isConfirmAction(router.route().segments[1]) && router.route().segments[1]}>
              {(action) => <ConfirmPage api={api} action={action() as Parameters<typeof ConfirmPage>[0]['action']} token={router.route().segments[2] ?? ''} />}
            </Match>
            <Match when={router.route().segments[0] === 'auth' && isOAuth2RedirectPage(router.route().segments[1])}>
              <OAuth2RedirectPage ok={router.route().segments[1] === 'oauth2-redirect-success'} />
            </Match>
            <Match when={boot.error}>
              <div class="center-screen">
                <div class="card card-narrow">
                  <div class="brand-lockup">
                    <span class="brand-mark" aria-hidden="true" />
                    <span class="brand-title">Deskbase</span>
                  </div>
                  <h1>Cannot reach the server</h1>
                  <p class="alert alert-error">
                    {boot.error instanceof ApiError && boot.error.status === 0 ? 'Check that Deskbase is running, then try again.' : messageOf(boot.error)}
                  </p>
                  <button class="btn btn-primary" onClick={() => refetch()}>
                    Try again
                  </button>
                </div>
              </div>
            </Match>
            <Match when={boot.loading}>
              <div class="center-screen">
                <div class="spinner" aria-label="Loading" />
              </div>
            </Match>
            <Match when={boot() === 'setup'}>
              <SetupPage api={api} onDone={setUp} />
            </Match>
            <Match when={!session()}>
              <LoginPage api={api} onSignedIn={signedIn} sessionEnded={ended()} />
            </Match>
            <Match when={session()}>
              <Shell
                api={api}
                session={session}
                onSignedOut={() => {
                  setEnded(false);
                  setSession(null);
                  router.navigate('#/login', { replace: true });
                }}
              />
            </Match>
          </Switch>
        </ToastProvider>
      </RouterContext.Provider>
    </ThemeContext.Provider>
  );
}
