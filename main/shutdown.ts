// Clean shutdown: every way out (Quit, last window closed, OS shutdown or logout, SIGTERM) goes through
// one stop() that closes the server (which checkpoints the database) before the process exits.
// Every write is already in the fsynced journal, so even a shutdown that cannot wait loses nothing:
// the checkpoint only spares the next start a replay.
//
// A quit the user asks for (menu, tray, Cmd+Q) lets Electron close the window first, so a page with an
// unsaved edit can ask (main/window-care.ts); the server is held open until 'will-quit', which comes
// only once every window has closed. An update waiting to be installed goes last: after the server is
// closed and the data folder's lock released, just before the process exits (main/updates.ts).
import { errorText } from './error-text.js';

export interface ShutdownDeps {
  /** server.close(): stops listening and checkpoints. */
  close(): Promise<void>;
  /** app.exit(code): leaves without emitting before-quit again. */
  exit(code: number): void;
  log(line: string): void;
  /**
   * Runs after the server is closed, right before exit(code): where an update is started
   * (main/updates.ts). A failure is logged; the exit happens anyway.
   */
  beforeExit?(code: number): void;
  /** Exits anyway after this long, so a stuck close never keeps a logout waiting. */
  timeoutMs?: number;
}

export interface PreventableEvent {
  preventDefault(): void;
}

export interface Shutdown {
  /** app 'before-quit': a quit was asked for; Electron now closes the windows (which may ask first). */
  onBeforeQuit(): void;
  /** app 'will-quit' (every window closed): holds the quit until the server is closed, then exits. */
  onWillQuit(event: PreventableEvent): void;
  /** A window kept its unsaved edit, which called the quit off. */
  onQuitCalledOff(): void;
  /**
   * app 'window-all-closed' outside a quit: true when the app should quit now, i.e. a quit was waiting
   * for that window, or the app does not keep running in the background.
   */
  shouldQuitWhenAllClosed(keepRunning: boolean): boolean;
  /** powerMonitor 'shutdown' (Linux, macOS): asks the OS to wait, then closes and exits. */
  onSystemShutdown(event?: PreventableEvent): void;
  /** Closes once (later calls share the first), then exits. */
  stop(): Promise<void>;
}

export const SHUTDOWN_TIMEOUT_MS = 10_000;

export function createShutdown(deps: ShutdownDeps): Shutdown {
  let stopping: Promise<void> | null = null;
  let quitAsked = false;

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      let code = 0;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), deps.timeoutMs ?? SHUTDOWN_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([deps.close().then(() => 'closed' as const), timeout]);
        if (outcome === 'timeout') {
          deps.log('Deskbase: closing the server took too long; exiting (the journal keeps every write).');
          code = 1;
        }
      } catch (err) {
        deps.log(`Deskbase: error while closing the server: ${errorText(err)}`);
        code = 1;
      } finally {
        clearTimeout(timer);
      }
      try {
        deps.beforeExit?.(code);
      } catch (err) {
        deps.log(`Deskbase: error before exiting: ${errorText(err)}`);
      }
      deps.exit(code);
    })();
    return stopping;
  };

  return {
    onBeforeQuit() {
      quitAsked = true;
    },
    onWillQuit(event) {
      event.preventDefault();
      void stop();
    },
    onQuitCalledOff() {
      quitAsked = false;
    },
    shouldQuitWhenAllClosed(keepRunning) {
      return quitAsked || !keepRunning;
    },
    onSystemShutdown(event) {
      event?.preventDefault();
      void stop();
    },
    stop,
  };
}
