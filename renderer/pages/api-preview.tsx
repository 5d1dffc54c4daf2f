// How an app talks to this collection: URLs, who is allowed (the rule), and copy-ready examples. The
// address is the LAN one while the desktop app shares on the network, else the one this page came from.
import { createSignal, For, Show, type JSX } from 'solid-js';
import type { Collection } from '../api.js';
import { operations, snippet, type Flavor, type OperationId } from '../lib/api-examples.js';
import { useToast } from '../components/toasts.js';
import { Icon } from '../components/icon.js';
import { useDesktop } from '../desktop.js';

const FLAVORS: Array<[Flavor, string]> = [
  ['curl', 'curl'],
  ['fetch', 'JavaScript fetch'],
  ['sdk', 'PocketBase JS SDK'],
];

function ruleText(rule: string | null | undefined): string {
  if (rule === null || rule === undefined) return 'Superusers only (send a superuser token)';
  if (rule === '') return 'Everyone, including guests (no token needed)';
  return `Requests matching: ${rule}`;
}

export function ApiPreview(props: { collection: Collection }): JSX.Element {
  const toast = useToast();
  const desktop = useDesktop();
  const lanUrl = () => (desktop?.lan.state().enabled ? desktop.lan.state().urls[0] : undefined);
  const origin = () => lanUrl() ?? window.location.origin;
  const loopback = () => /^(localhost|127\.|\[::1\])/.test(new URL(origin()).host);
  const [opId, setOpId] = createSignal<OperationId>('list');
  const [flavor, setFlavor] = createSignal<Flavor>('curl');
  const op = () => operations(props.collection).find((o) => o.id === opId()) ?? operations(props.collection)[0];
  const code = () => snippet(props.collection, op(), flavor(), origin());
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code());
      toast('Copied to the clipboard.');
    } catch {
      toast('Copy failed: select the text and copy it by hand.', 'error');
    }
  };
  return (
    <section class="api-preview">
      <p class="muted">
        Apps {loopback() ? 'on this computer' : 'on your network'} reach this collection at <code>{origin()}/api/collections/{props.collection.name}</code>.
        <Show when={desktop && loopback()}>
          {' '}Other devices can once you <a href="#/data">share on the local network</a>.
        </Show>{' '}
        Deskbase speaks PocketBase's API, so its JavaScript SDK works too.
      </p>
      <div class="api-layout">
        <nav class="op-list-nav" aria-label="Operations">
          <For each={operations(props.collection)}>
            {(o) => (
              <button type="button" class="op-item" classList={{ active: o.id === opId() }} onClick={() => setOpId(o.id)}>
                <span class={`method method-${o.method.toLowerCase()}`}>{o.method}</span>
                {o.title}
              </button>
            )}
          </For>
        </nav>
        <div class="card op-detail">
          <h2>{op().title}</h2>
          <div class="endpoint">
            <span class={`method method-${op().method.toLowerCase()}`}>{op().method}</span>
            <code>{op().path}</code>
          </div>
          <Show when={op().rule}>
            {(rule) => (
              <p class="rule-line">
                <Icon name="key" size={14} /> <b>Access:</b> {ruleText(props.collection[rule()])}
              </p>
            )}
          </Show>
          <Show when={op().id === 'list'}>
            <table class="params">
              <tbody>
                <tr><td><code>page</code></td><td>Page number, from 1.</td></tr>
                <tr><td><code>perPage</code></td><td>1 to 1000, default 30.</td></tr>
                <tr><td><code>sort</code></td><td>Comma-separated fields, <code>-</code> for descending: <code>-created,title</code>.</td></tr>
                <tr><td><code>filter</code></td><td>A filter expression: <code>{'status = "open" && total > 10'}</code>.</td></tr>
                <tr><td><code>expand</code></td><td>Relations to load: <code>author,comments_via_post</code>.</td></tr>
                <tr><td><code>fields</code></td><td>Fields to return: <code>id,title,expand.author.name</code>.</td></tr>
                <tr><td><code>skipTotal</code></td><td><code>true</code> skips counting (faster).</td></tr>
              </tbody>
            </table>
          </Show>
          <div class="code-tabs" role="tablist">
            <For each={FLAVORS}>
              {([id, label]) => (
                <button type="button" role="tab" aria-selected={flavor() === id} classList={{ active: flavor() === id }} onClick={() => setFlavor(id)}>
                  {label}
                </button>
              )}
            </For>
            <span class="spacer" />
            <button type="button" class="btn btn-small btn-ghost" onClick={() => void copy()}>
              <Icon name="copy" /> Copy
            </button>
          </div>
          <pre class="code"><code>{code()}</code></pre>
        </div>
      </div>
    </section>
  );
}
