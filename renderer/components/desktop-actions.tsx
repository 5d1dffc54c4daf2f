// Desktop-only shortcuts: copy the API address, open the data folder in the file manager.
import { createSignal, type JSX } from 'solid-js';
import { bridgeErrorText, type DeskbaseDesktopApi } from '../desktop.js';
import { useToast } from './toasts.js';
import { Icon } from './icon.js';

export function DesktopActions(props: { bridge: DeskbaseDesktopApi }): JSX.Element {
  const toast = useToast();
  const [busy, setBusy] = createSignal(false);
  const run = async (action: () => Promise<string | undefined>) => {
    setBusy(true);
    try {
      const done = await action();
      if (done) toast(done);
    } catch (err) {
      toast(bridgeErrorText(err), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card section">
      <h2>This computer</h2>
      <p class="muted section-intro">The API address for scripts and apps, and the folder that holds the database.</p>
      <div class="button-row">
        <button type="button" class="btn" disabled={busy()} onClick={() => void run(async () => `Copied ${await props.bridge.copyApiUrl()}`)}>
          <Icon name="copy" /> Copy API URL
        </button>
        <button type="button" class="btn" disabled={busy()} onClick={() => void run(async () => void (await props.bridge.openDataFolder()))}>
          <Icon name="folder" /> Open data folder
        </button>
      </div>
    </section>
  );
}
