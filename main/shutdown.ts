// Clean shutdown: every way out (Quit, last window closed, OS shutdown or logout, SIGTERM) goes through
// one stop() that closes the server (which checkpoints the database) before the process exits.
// Every write is already in the fsynced journal, so even a shutdown that cannot wait loses nothing:
// the checkpoint only spares the next start a replay.
import { errorText } from './error-text.js';

export interface ShutdownDeps {
  /** server.close(): stops listening and checkpoints. */
  close(): Promise<void>;
  /** app.exit(code): leaves without emitting before-quit again. */
  exit(code: number): void;
  log(line: string): void;
  /** Exits anyway after this long, so a stuck close never keeps a logout waiting. */
  timeoutMs?: number;
}

export interface PreventableEvent {
  preventDefault(): void;
}

export interface Shutdown {
  /** app 'before-quit': holds the quit until the server is closed, then exits. */
  onBeforeQuit(event: PreventableEvent): void;
  /** powerMonitor 'shutdown' (Linux, macOS): asks the OS to wait, then closes and exits. */
  onSystemShutdown(event?: PreventableEvent): void;
  /** Closes once (later calls share the first), then exits. */
  stop(): Promise<void>;
}

export const SHUTDOWN_TIMEOUT_MS = 10_000;

export function createShutdown(deps: ShutdownDeps): Shutdown {
  let stopping: Promise<void> | null = null;

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
      deps.exit(code);
    })();
    return stopping;
  };

  return {
    onBeforeQuit(event) {
      event.preventDefault();
      void stop();
    },
    onSystemShutdown(event) {
      event?.preventDefault();
      void stop();
    },
    stop,
  };
}
