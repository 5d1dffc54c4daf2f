// Live pages: re-reads a page's data when another client changes it (realtime, renderer/api.ts).
// Bursts of events (a batch, an import) cost one re-read per LIVE_DELAY_MS.
import { createEffect, onCleanup, type Accessor } from 'solid-js';
import type { Api } from '../api.js';

export const LIVE_DELAY_MS = 150;

/** While mounted, calls `reload` (coalesced) after events on the topics `topics()` names. */
export function useLive(api: Api, topics: Accessor<string[]>, reload: () => void): void {
  createEffect(() => {
    const list = topics();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = api.subscribe(list, () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        reload();
      }, LIVE_DELAY_MS);
    });
    onCleanup(() => {
      stop();
      if (timer !== undefined) clearTimeout(timer);
    });
  });
}
