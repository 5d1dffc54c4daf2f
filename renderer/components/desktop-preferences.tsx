// The desktop app's own settings (main/preferences.ts): the port, background mode, open at login and the
// update channel; the theme has its switch in the sidebar. Shown only in the desktop window. Each change
// goes to the main process, which applies it to the OS and answers the new state (or why not).
import { createSignal, onCleanup, onMount, Show, type JSX } from 'solid-js';
import type { DesktopPreferences, PreferencesPatch } from '../../main/preload-api.js';
import { bridgeErrorText, type DeskbaseDesktopApi } from '../desktop.js';

export function DesktopPreferencesCard(props: { bridge: DeskbaseDesktopApi }): JSX.Element {
  const [prefs, setPrefs] = createSignal<DesktopPreferences | null>(null);
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal('');
  const [port, setPort] = createSignal('');
  const [portSaved, setPortSaved] = createSignal(false);
  const take = (next: DesktopPreferences) => {
    setPrefs(next);
    setPort(String(next.port));
  };
  onMount(() => {
    onCleanup(props.bridge.preferences.onChange(take));
    props.bridge.preferences.get().then(take, (err: unknown) => setError(bridgeErrorText(err)));
  });

  const change = async (patch: PreferencesPatch) => {
    setBusy(true);
    setError('');
    try {
      take(await props.bridge.preferences.set(patch));
      return true;
    } catch (err) {
      setError(bridgeErrorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const toggle = (input: HTMLInputElement, key: 'keepRunning' | 'openAtLogin') => {
    const wanted = input.checked;
    // The switch shows the app's state, not the click: it moves once the change is applied.
    input.checked = prefs()?.[key] ?? false;
    void change({ [key]: wanted });
  };
  const savePort = async (e: SubmitEvent) => {
    e.preventDefault();
    setPortSaved(false);
    const value = Number(port());
    if (!/^\d+$/.test(port().trim()) || value < 1024 || value > 65535) {
      setError('The port must be a whole number from 1024 to 65535.');
      return;
    }
    if (await change({ port: value })) setPortSaved(true);
  };

  return (
    <section class="card section desktop-prefs" aria-labelledby="prefs-title">
      <h2 id="prefs-title">This app</h2>
      <Show when={prefs()} fallback={<Show when={!error()}><div class="spinner" /></Show>}>
        {(p) => (
          <>
            <Show when={p().portInUse !== p().port}>
              <p class="alert alert-info port-notice" role="status">
                Port {p().port} is used by another program, so Deskbase is on port {p().portInUse} this time. Sign-in is
                kept per address, so you may have had to sign in again; apps using port {p().port} must use {p().portInUse}.
              </p>
            </Show>
            <div class="setting-row">
              <div class="setting-text">
                <h3 id="keep-running-title">Keep running when the window is closed</h3>
                <p class="muted">
                  {p().keepRunningAvailable
                    ? 'The server keeps serving your apps from the tray; Quit in the tray or menu stops it.'
                    : 'This desktop has no tray, so closing the window quits Deskbase.'}
                </p>
              </div>
              <label class="switch">
                <input type="checkbox" role="switch" aria-labelledby="keep-running-title" checked={p().keepRunning}
                  disabled={busy() || !p().keepRunningAvailable} onChange={(e) => toggle(e.currentTarget, 'keepRunning')} />
                <span class="switch-track" aria-hidden="true" />
                <span class="switch-label">{p().keepRunning ? 'On' : 'Off'}</span>
              </label>
            </div>
            <div class="setting-row">
              <div class="setting-text">
                <h3 id="login-title">Open at login</h3>
                <p class="muted">Start Deskbase when you log in, with its window closed while it keeps running in the tray.</p>
              </div>
              <label class="switch">
                <input type="checkbox" role="switch" aria-labelledby="login-title" checked={p().openAtLogin} disabled={busy()}
                  onChange={(e) => toggle(e.currentTarget, 'openAtLogin')} />
                <span class="switch-track" aria-hidden="true" />
                <span class="switch-label">{p().openAtLogin ? 'On' : 'Off'}</span>
              </label>
            </div>
            <form class="setting-row" onSubmit={(e) => void savePort(e)}>
              <div class="setting-text">
                <h3><label for="prefs-port">Port</label></h3>
                <p class="muted">The port the server asks for when Deskbase starts (now {p().portInUse}). A new port applies at the next start.</p>
                <Show when={portSaved() && p().port !== p().portInUse}>
                  <p class="muted small" role="status">
                    Saved: restart Deskbase to use port {p().port}.{' '}
                    <button type="button" class="btn btn-small" onClick={() => props.bridge.restart().catch((err: unknown) => setError(bridgeErrorText(err)))}>
                      Restart now
                    </button>
                  </p>
                </Show>
              </div>
              <div class="input-row prefs-port">
                <input id="prefs-port" inputmode="numeric" value={port()} onInput={(e) => setPort(e.currentTarget.value)} />
                <button type="submit" class="btn" disabled={busy() || port() === String(p().port)}>Save</button>
              </div>
            </form>
            <div class="setting-row">
              <div class="setting-text">
                <h3><label for="prefs-channel">Updates</label></h3>
                <p class="muted">Stable releases, or betas too (they come earlier and may have rough edges).</p>
              </div>
              <select id="prefs-channel" value={p().updateChannel} disabled={busy()}
                onChange={(e) => void change({ updateChannel: e.currentTarget.value as DesktopPreferences['updateChannel'] })}>
                <option value="stable">Stable</option>
                <option value="beta">Beta</option>
              </select>
            </div>
          </>
        )}
      </Show>
      <Show when={error()}>
        <p class="alert alert-error" role="alert">{error()}</p>
      </Show>
    </section>
  );
}
