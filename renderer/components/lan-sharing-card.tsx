// "Share on local network": the switch, the addresses other devices use, and a QR code for phones; the
// HTTPS switch beside it (browsers on other devices keep a sign-in only over HTTPS) with how a device
// trusts Deskbase's certificate, and what the OS's firewall will ask.
import { createSignal, For, onCleanup, onMount, Show, type JSX } from 'solid-js';
import type { DesktopPreferences } from '../../main/preload-api.js';
import { bridgeErrorText, type DeskbaseDesktopApi, type LanSharing } from '../desktop.js';

export function LanSharingCard(props: { lan: LanSharing; bridge?: DeskbaseDesktopApi }): JSX.Element {
  const on = () => props.lan.state().enabled;
  const onToggle = (input: HTMLInputElement) => {
    const wanted = input.checked;
    // The switch shows the server's state, not the click: it moves once the rebind succeeded.
    input.checked = on();
    void props.lan.setEnabled(wanted);
  };
  const [prefs, setPrefs] = createSignal<DesktopPreferences | null>(null);
  const [httpsError, setHttpsError] = createSignal('');
  const [httpsBusy, setHttpsBusy] = createSignal(false);
  onMount(() => {
    const preferences = props.bridge?.preferences;
    if (!preferences) return;
    onCleanup(preferences.onChange(setPrefs));
    preferences.get().then(setPrefs, (err: unknown) => setHttpsError(bridgeErrorText(err)));
  });
  const onHttps = async (input: HTMLInputElement) => {
    const wanted = input.checked;
    input.checked = prefs()?.https ?? false;
    setHttpsBusy(true);
    setHttpsError('');
    try {
      setPrefs(await props.bridge!.preferences.set({ https: wanted }));
    } catch (err) {
      setHttpsError(bridgeErrorText(err));
    } finally {
      setHttpsBusy(false);
    }
  };
  const restart = () => {
    props.bridge?.restart().catch((err: unknown) => setHttpsError(bridgeErrorText(err)));
  };
  return (
    <section class="card section" aria-labelledby="lan-title">
      <div class="setting-row">
        <div class="setting-text">
          <h2 id="lan-title">Share on local network</h2>
          <p class="muted">
            Let phones and other computers on this network use the API. Off by default; the choice is remembered.
          </p>
        </div>
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-labelledby="lan-title"
            checked={on()}
            disabled={props.lan.busy()}
            onChange={(e) => onToggle(e.currentTarget)}
          />
          <span class="switch-track" aria-hidden="true" />
          <span class="switch-label">{props.lan.busy() ? 'Changing…' : on() ? 'On' : 'Off'}</span>
        </label>
      </div>
      <Show when={props.lan.error()}>
        <p class="alert alert-error lan-error" role="alert">Could not change sharing: {props.lan.error()}</p>
      </Show>
      <Show when={on()}>
        <div class="lan-details">
          <div class="lan-urls">
            <h3>Addresses on this network</h3>
            <ul>
              <For each={props.lan.state().urls} fallback={<li class="muted">No network address found. Is this computer connected?</li>}>
                {(url) => (
                  <li>
                    <code>{url}</code>
                  </li>
                )}
              </For>
            </ul>
            <p class="muted small">
              The API is under <code>/api/</code>, this admin UI under <code>/_/</code>.{' '}
              {props.lan.state().tls ? 'Traffic is encrypted (HTTPS).' : 'Plain HTTP: not encrypted, turn sharing off on networks you do not trust.'}
            </p>
            <p class="muted small">
              The first time, your computer's firewall may ask whether Deskbase may accept incoming connections: allow it on
              private networks for other devices to connect; refusing keeps Deskbase reachable from this computer only.
            </p>
          </div>
          <Show when={props.lan.state().qr}>
            {(qr) => (
              <figure class="lan-qr">
                <img src={qr()} width="160" height="160" alt={`QR code of ${props.lan.state().urls[0] ?? 'the LAN address'}`} />
                <figcaption class="muted small">Scan with a phone on the same network</figcaption>
              </figure>
            )}
          </Show>
        </div>
      </Show>
      <Show when={prefs()}>
        {(p) => (
          <div class="lan-https">
            <div class="setting-row">
              <div class="setting-text">
                <h3 id="https-title">Use HTTPS</h3>
                <p class="muted">
                  Browsers on other devices keep their sign-in only over HTTPS (they drop secure cookies from plain-HTTP
                  addresses). Deskbase makes its own certificate; each device trusts it once.
                </p>
              </div>
              <label class="switch">
                <input type="checkbox" role="switch" aria-labelledby="https-title" checked={p().https} disabled={httpsBusy()}
                  onChange={(e) => void onHttps(e.currentTarget)} />
                <span class="switch-track" aria-hidden="true" />
                <span class="switch-label">{p().https ? 'On' : 'Off'}</span>
              </label>
            </div>
            <Show when={p().https !== p().httpsInUse}>
              <p class="alert alert-info restart-notice" role="status">
                {p().https ? 'HTTPS' : 'Plain HTTP'} applies when Deskbase restarts. This window then opens at its{' '}
                {p().https ? 'https' : 'http'} address, where you sign in once more.{' '}
                <button type="button" class="btn btn-small" onClick={restart}>Restart now</button>
              </p>
            </Show>
            <Show when={props.lan.state().tls}>
              {(tls) => (
                <details class="trust-help">
                  <summary>How a phone or another computer trusts Deskbase's certificate</summary>
                  <p class="muted small">
                    Copy <code>{tls().caPath}</code> to the device (mail, a cable, a shared folder) and install it as a
                    certificate authority; then compare this fingerprint with the one the device shows:
                  </p>
                  <p><code class="fingerprint">SHA-256 {tls().caFingerprint}</code></p>
                  <ul class="muted small">
                    <li>iPhone, iPad: open the file, install the profile in Settings, then turn on full trust in Settings › General › About › Certificate Trust Settings.</li>
                    <li>Android: Settings › Security › Encryption &amp; credentials › Install a certificate › CA certificate.</li>
                    <li>macOS: open it in Keychain Access and set it to Always Trust. Windows: install it into Trusted Root Certification Authorities.</li>
                    <li>Firefox keeps its own list: Settings › Privacy &amp; Security › Certificates › Import.</li>
                  </ul>
                </details>
              )}
            </Show>
          </div>
        )}
      </Show>
      <Show when={httpsError()}>
        <p class="alert alert-error" role="alert">{httpsError()}</p>
      </Show>
    </section>
  );
}
