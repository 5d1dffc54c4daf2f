// Asks before unsaved work is left behind: in-app links and back/forward get a confirm dialog, closing
// or reloading a browser tab gets the browser's own "Leave site?" prompt, and closing or reloading the
// desktop window gets the main process's dialog (its 'will-prevent-unload', main/window-care.ts).
import { onCleanup, onMount, Show, type JSX } from 'solid-js';
import { useRouter } from '../router.js';
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
  onMount(() => window.addEventListener('beforeunload', onBeforeUnload));
  onCleanup(() => window.removeEventListener('beforeunload', onBeforeUnload));
  return (
    <Show when={router.pending() !== null}>
      <ConfirmDialog title={props.title} confirmLabel="Leave without saving" danger onConfirm={() => router.proceed()} onCancel={() => router.stay()}>
        {props.children}
      </ConfirmDialog>
    </Show>
  );
}
