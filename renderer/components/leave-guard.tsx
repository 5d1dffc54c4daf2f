// Asks before unsaved work is left behind: in-app links and back/forward get a confirm dialog, closing
// or reloading a browser tab gets the browser's own "Leave site?" prompt.
import { onCleanup, onMount, Show, type JSX } from 'solid-js';
import { useRouter } from '../router.js';
import { desktopBridge } from '../desktop.js';
import { ConfirmDialog } from './dialog.js';

export function LeaveGuard(props: { when: boolean; title: string; children?: JSX.Element }): JSX.Element {
  const router = useRouter();
  router.guard(() => props.when);
  const onBeforeUnload = (e: BeforeUnloadEvent) => {
    if (!props.when) return;
    e.preventDefault();
    // Older Chromium (and Electron) look at returnValue instead of preventDefault.
    e.returnValue = '';
  };
  // Not in the desktop window: there a held unload silently cancels closing the window (and quitting
  // from the tray) unless the main process answers 'will-prevent-unload', which it does not yet.
  onMount(() => {
    if (!desktopBridge()) window.addEventListener('beforeunload', onBeforeUnload);
  });
  onCleanup(() => window.removeEventListener('beforeunload', onBeforeUnload));
  return (
    <Show when={router.pending() !== null}>
      <ConfirmDialog title={props.title} confirmLabel="Leave without saving" danger onConfirm={() => router.proceed()} onCancel={() => router.stay()}>
        {props.children}
      </ConfirmDialog>
    </Show>
  );
}
