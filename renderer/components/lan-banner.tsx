// The warning shown on every page while LAN sharing is on: the server answers the whole network then.
import { Show, type JSX } from 'solid-js';
import type { LanSharing } from '../desktop.js';
import { useRouter } from '../router.js';
import { Icon } from './icon.js';

/** "a", "a and b", "a, b and c". */
function listOf(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export function LanBanner(props: { lan: LanSharing }): JSX.Element {
  const router = useRouter();
  const where = () => {
    const urls = props.lan.state().urls;
    return urls.length > 0 ? `at ${listOf(urls)}` : 'on every network address of this computer';
  };
  return (
    <Show when={props.lan.state().enabled}>
      <div class="lan-banner" role="alert">
        <Icon name="wifi" size={18} />
        <p>
          <b>Sharing is on.</b> Deskbase is reachable from your local network {where()}: anyone on this network can call the API;
          rules still apply.
        </p>
        <div class="lan-banner-actions">
          <Show when={router.route().segments[0] !== 'data'}>
            <a class="btn btn-small" href="#/data">Details</a>
          </Show>
          <button type="button" class="btn btn-small" disabled={props.lan.busy()} onClick={() => void props.lan.setEnabled(false)}>
            {props.lan.busy() ? 'Stopping…' : 'Stop sharing'}
          </button>
        </div>
      </div>
    </Show>
  );
}
