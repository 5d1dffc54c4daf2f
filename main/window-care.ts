// The window is never left blank: a renderer that crashed is reloaded (and, when it keeps crashing, the
// user is told in a dialog); a hung one gets a "Wait / Reload" dialog that closes by itself if the page
// recovers; a page that failed to load gets "Try Again". And a close or reload with an unsaved record
// edit asks first ('will-prevent-unload'), as the in-app navigation does.
//
// Every dialog is asynchronous: the server runs on this process's event loop, and a synchronous message
// box would stall every client while it is open.

export interface DialogOptions {
  type: 'none' | 'info' | 'error' | 'question' | 'warning';
  title: string;
  message: string;
  detail?: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  /** Closes the dialog from our side (the hung page answered again). */
  signal?: AbortSignal;
}

/** The events of Electron's WebContents we follow, and what we do to it. */
export interface CaredContents {
  on(event: 'render-process-gone', listener: (event: unknown, details: { reason: string; exitCode: number }) => void): unknown;
  on(event: 'unresponsive' | 'responsive', listener: () => void): unknown;
  on(
    event: 'did-fail-load',
    listener: (event: unknown, errorCode: number, errorDescription: string, validatedURL: string, isMainFrame: boolean) => void,
  ): unknown;
  on(event: 'preload-error', listener: (event: unknown, preloadPath: string, error: Error) => void): unknown;
  on(event: 'will-prevent-unload', listener: (event: { preventDefault(): void }) => void): unknown;
  isDestroyed(): boolean;
  getURL(): string;
  loadURL(url: string): Promise<void>;
  reload(): void;
  /** Ends a hung renderer so that a reload starts a fresh one. */
  forcefullyCrashRenderer(): void;
}

export interface CaredWindow {
  on(event: 'close', listener: () => void): unknown;
  close(): void;
  isDestroyed(): boolean;
}

export interface WindowCareDeps {
  /** dialog.showMessageBox(win, options), resolving to the index of the button chosen. */
  ask(options: DialogOptions): Promise<number>;
  log(line: string): void;
  openLogsFolder(): void;
  quit(): void;
  /** The user chose to keep an unsaved edit: a quit that was waiting for the window is called off. */
  onEditKept?(): void;
  now?: () => number;
}

/** Crashes closer together than this count as "keeps crashing": reloading again would only loop. */
export const CRASH_WINDOW_MS = 60_000;
export const CRASHES_BEFORE_ASKING = 3;
/** Chromium's net::ERR_ABORTED: a load replaced by another (a redirect, a new loadURL), not a failure. */
const ERR_ABORTED = -3;

export function careForWindow(win: CaredWindow, contents: CaredContents, fallbackUrl: string, deps: WindowCareDeps): void {
  const now = deps.now ?? Date.now;
  const crashes: number[] = [];
  let asking = false;
  // Which unload the page held: the window's close (its 'close' event comes first) or a reload.
  let closing = false;
  let leaveApproved = false;

  const alive = () => !win.isDestroyed() && !contents.isDestroyed();
  const currentUrl = () => {
    const url = contents.getURL();
    return url && url.startsWith('http') ? url : fallbackUrl;
  };

  /** One dialog at a time; the answer's button index, or null when another dialog is already open. */
  const askOnce = async (options: DialogOptions): Promise<number | null> => {
    if (asking) return null;
    asking = true;
    try {
      return await deps.ask(options);
    } finally {
      asking = false;
    }
  };

  const reloadAt = (url: string) => {
    if (alive()) contents.loadURL(url).catch(() => undefined); // a failure comes back as did-fail-load
  };

  contents.on('render-process-gone', (_event, details) => {
    deps.log(`The window's renderer is gone (${details.reason}, exit code ${details.exitCode}).`);
    if (!alive()) return;
    const at = now();
    crashes.push(at);
    while (crashes.length > 0 && at - crashes[0] > CRASH_WINDOW_MS) crashes.shift();
    const url = currentUrl();
    if (crashes.length < CRASHES_BEFORE_ASKING) {
      reloadAt(url);
      return;
    }
    void askOnce({
      type: 'error',
      title: 'Deskbase',
      message: 'The Deskbase window keeps crashing.',
      detail: `Its page stopped ${crashes.length} times in the last minute (${details.reason}). The server is still running and your data is safe. The log may say why.`,
      buttons: ['Reload', 'Open Logs Folder', 'Quit Deskbase'],
      defaultId: 0,
      cancelId: 0,
    }).then((choice) => {
      if (choice === 0) {
        crashes.length = 0;
        reloadAt(url);
      } else if (choice === 1) deps.openLogsFolder();
      else if (choice === 2) deps.quit();
    });
  });

  let hang: AbortController | null = null;
  contents.on('unresponsive', () => {
    deps.log('The window is not responding.');
    if (hang) return;
    const controller = new AbortController();
    hang = controller;
    void askOnce({
      type: 'warning',
      title: 'Deskbase',
      message: 'The Deskbase window is not responding.',
      detail: 'You can wait for it, or reload it (an unsaved edit in the window would be lost). The server keeps running either way.',
      buttons: ['Wait', 'Reload'],
      defaultId: 0,
      cancelId: 0,
      signal: controller.signal,
    }).then((choice) => {
      if (hang === controller) hang = null;
      if (choice !== 1 || controller.signal.aborted || !alive()) return;
      deps.log('Reloading the hung window.');
      const url = currentUrl();
      contents.forcefullyCrashRenderer();
      reloadAt(url);
    });
  });
  contents.on('responsive', () => {
    if (!hang) return;
    deps.log('The window responds again.');
    hang.abort();
    hang = null;
  });

  contents.on('did-fail-load', (_event, errorCode, errorDescription, validatedURL, isMainFrame) => {
    if (!isMainFrame || errorCode === ERR_ABORTED) return;
    deps.log(`The window could not load ${validatedURL}: ${errorDescription} (${errorCode}).`);
    const url = validatedURL && validatedURL.startsWith('http') ? validatedURL : fallbackUrl;
    void askOnce({
      type: 'error',
      title: 'Deskbase',
      message: 'Deskbase could not load its window.',
      detail: `${errorDescription} (${errorCode}) loading ${url}.`,
      buttons: ['Try Again', 'Open Logs Folder', 'Quit Deskbase'],
      defaultId: 0,
      cancelId: 0,
    }).then((choice) => {
      if (choice === 0) reloadAt(url);
      else if (choice === 1) deps.openLogsFolder();
      else if (choice === 2) deps.quit();
    });
  });

  contents.on('preload-error', (_event, preloadPath, error) => {
    deps.log(`The window's preload ${preloadPath} failed: ${error?.stack ?? String(error)}`);
  });

  // A close the page does not hold goes ahead (the window is gone); one it holds comes back as
  // will-prevent-unload, which reads and clears the mark.
  win.on('close', () => {
    closing = true;
  });

  contents.on('will-prevent-unload', (event) => {
    if (leaveApproved) {
      // The user already chose to leave: ignore the page's beforeunload this time.
      leaveApproved = false;
      event.preventDefault();
      return;
    }
    const wasClosing = closing;
    closing = false;
    // Not preventing the default keeps the page: the answer below repeats the close or reload if wanted.
    void askOnce({
      type: 'question',
      title: 'Deskbase',
      message: wasClosing ? 'Close the window without saving?' : 'Reload without saving?',
      detail: 'A record or collection you are editing has changes that are not saved.',
      buttons: [wasClosing ? 'Close Without Saving' : 'Reload Without Saving', 'Keep Editing'],
      defaultId: 1,
      cancelId: 1,
    }).then((choice) => {
      if (choice !== 0 || !alive()) {
        deps.onEditKept?.();
        return;
      }
      leaveApproved = true;
      if (wasClosing) win.close();
      else contents.reload();
    });
  });
}
