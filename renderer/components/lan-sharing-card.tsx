// "Share on local network": the switch, the addresses other devices use, and a QR code for phones.
import { For, Show, type JSX } from 'solid-js';
import type { LanSharing } from '../desktop.js';

export function LanSharingCard(props: { lan: LanSharing }): JSX.Element {
  const on = () => props.lan.state().enabled;
  const onToggle = (input: HTMLInputElement) => {
    const wanted = input.checked;
    // The switch shows the server's state, not the click: it moves once the rebind succeeded.
    input.checked = on();
    void props.lan.setEnabled(wanted);
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
            <p class="muted small">The API is under <code>/api/</code>, this admin UI under <code>/_/</code>. Plain HTTP: turn sharing off on networks you do not trust.</p>
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
    </section>
  );
}
