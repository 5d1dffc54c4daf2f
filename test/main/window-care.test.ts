// The window is never left blank, and never closed over an unsaved edit without asking
// (main/window-care.ts), driven through a test double of Electron's BrowserWindow and WebContents.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { careForWindow, CRASH_WINDOW_MS, type CaredContents, type CaredWindow, type DialogOptions } from '../../main/window-care.js';

const URL0 = 'http://127.0.0.1:8090/_/#/collections/posts';
const FALLBACK = 'http://127.0.0.1:8090/_/';

function setup() {
  const calls: string[] = [];
  const asked: DialogOptions[] = [];
  const answers: Array<(choice: number) => void> = [];
  let clock = 1_000_000;
  const contents = Object.assign(new EventEmitter(), {
    destroyed: false,
    url: URL0,
    isDestroyed: () => contents.destroyed,
    getURL: () => contents.url,
    loadURL: async (url: string) => void calls.push(`load ${url}`),
    reload: () => void calls.push('reload'),
    forcefullyCrashRenderer: () => void calls.push('crash-renderer'),
  });
  const win = Object.assign(new EventEmitter(), {
    destroyed: false,
    isDestroyed: () => win.destroyed,
    close: () => {
      calls.push('close');
      win.emit('close');
    },
  });
  careForWindow(win as unknown as CaredWindow, contents as unknown as CaredContents, FALLBACK, {
    ask: (options) => {
      asked.push(options);
      return new Promise<number>((resolve) => {
        answers.push(resolve);
        options.signal?.addEventListener('abort', () => resolve(options.cancelId));
      });
    },
    log: (line) => calls.push(`log ${line}`),
    openLogsFolder: () => calls.push('open-logs'),
    quit: () => calls.push('quit'),
    onEditKept: () => calls.push('edit-kept'),
    now: () => clock,
  });
  const answer = async (choice: number) => {
    answers.shift()!(choice);
    await new Promise((r) => setImmediate(r));
  };
  const tick = (ms: number) => (clock += ms);
  const actions = () => calls.filter((c) => !c.startsWith('log '));
  const logs = () => calls.filter((c) => c.startsWith('log '));
  const unloadEvent = () => {
    const e = { prevented: false, preventDefault: () => void (e.prevented = true) };
    return e;
  };
  return { calls, asked, answer, tick, contents, win, actions, logs, unloadEvent };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('a crashed renderer', () => {
  it('is reloaded at the page it showed, and the reason logged', async () => {
    const t = setup();
    t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    expect(t.actions()).toEqual([`load ${URL0}`]);
    expect(t.logs()).toEqual(["log The window's renderer is gone (crashed, exit code 11)."]);
    expect(t.asked).toEqual([]);
  });

  it('a blank page (no URL after the crash) is reloaded at the admin UI', () => {
    const t = setup();
    t.contents.url = '';
    t.contents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 0 });
    expect(t.actions()).toEqual([`load ${FALLBACK}`]);
  });

  it('crashing again and again within a minute is explained in a dialog instead of looping', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) {
      t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
      t.tick(10_000);
    }
    expect(t.actions()).toEqual([`load ${URL0}`, `load ${URL0}`]);
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0]).toMatchObject({ type: 'error', message: 'The Deskbase window keeps crashing.', buttons: ['Reload', 'Open Logs Folder', 'Quit Deskbase'] });
    expect(t.asked[0].detail).toMatch(/server is still running/);
    await t.answer(1);
    expect(t.actions().at(-1)).toBe('open-logs');
  });

  it('crashes a minute apart are each reloaded', () => {
    const t = setup();
    for (let i = 0; i < 5; i++) {
      t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
      t.tick(CRASH_WINDOW_MS + 1);
    }
    expect(t.actions()).toEqual(Array(5).fill(`load ${URL0}`));
    expect(t.asked).toEqual([]);
  });

  it('"Reload" in the dialog starts counting again; "Quit" quits', async () => {
    const t = setup();
    for (let i = 0; i < 3; i++) t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    await t.answer(0);
    expect(t.actions().at(-1)).toBe(`load ${URL0}`);
    t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    expect(t.asked).toHaveLength(1);
    t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    await t.answer(2);
    expect(t.actions().at(-1)).toBe('quit');
  });

  it('a window already destroyed is left alone', () => {
    const t = setup();
    t.win.destroyed = true;
    t.contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    expect(t.actions()).toEqual([]);
  });
});

describe('a hung renderer', () => {
  it('asks Wait or Reload; Reload ends the renderer and loads the page again', async () => {
    const t = setup();
    t.contents.emit('unresponsive');
    t.contents.emit('unresponsive');
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0]).toMatchObject({ type: 'warning', message: 'The Deskbase window is not responding.', buttons: ['Wait', 'Reload'], cancelId: 0 });
    await t.answer(1);
    expect(t.actions()).toEqual(['crash-renderer', `load ${URL0}`]);
  });

  it('Wait leaves it be', async () => {
    const t = setup();
    t.contents.emit('unresponsive');
    await t.answer(0);
    expect(t.actions()).toEqual([]);
  });

  it('the dialog closes by itself when the page responds again, and nothing is reloaded', async () => {
    const t = setup();
    t.contents.emit('unresponsive');
    expect(t.asked[0].signal?.aborted).toBe(false);
    t.contents.emit('responsive');
    expect(t.asked[0].signal?.aborted).toBe(true);
    await settle();
    expect(t.actions()).toEqual([]);
    // and a later hang asks again
    t.contents.emit('unresponsive');
    expect(t.asked).toHaveLength(2);
  });
});

describe('a page that failed to load', () => {
  it('offers Try Again, which loads the same address', async () => {
    const t = setup();
    t.contents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', 'http://127.0.0.1:8090/_/', true);
    expect(t.asked[0]).toMatchObject({ message: 'Deskbase could not load its window.', buttons: ['Try Again', 'Open Logs Folder', 'Quit Deskbase'] });
    expect(t.asked[0].detail).toContain('ERR_CONNECTION_REFUSED (-102)');
    await t.answer(0);
    expect(t.actions()).toEqual(['load http://127.0.0.1:8090/_/']);
    expect(t.logs()[0]).toContain('could not load http://127.0.0.1:8090/_/: ERR_CONNECTION_REFUSED (-102)');
  });

  it.each([
    { name: 'an aborted load (replaced by another)', code: -3, mainFrame: true },
    { name: 'a subframe', code: -102, mainFrame: false },
  ])('ignores $name', ({ code, mainFrame }) => {
    const t = setup();
    t.contents.emit('did-fail-load', {}, code, 'x', URL0, mainFrame);
    expect(t.asked).toEqual([]);
    expect(t.calls).toEqual([]);
  });

  it('only one dialog at a time', () => {
    const t = setup();
    t.contents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', URL0, true);
    t.contents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', URL0, true);
    expect(t.asked).toHaveLength(1);
  });

  it('a preload that failed is logged with its stack', () => {
    const t = setup();
    t.contents.emit('preload-error', {}, '/app/preload.cjs', new Error('bad preload'));
    expect(t.logs()[0]).toContain("The window's preload /app/preload.cjs failed: Error: bad preload");
  });
});

describe('closing with an unsaved edit (will-prevent-unload)', () => {
  it('keeps the window while asking, then closes it when the user chooses to', async () => {
    const t = setup();
    t.win.close();
    const held = t.unloadEvent();
    t.contents.emit('will-prevent-unload', held);
    expect(held.prevented).toBe(false); // the page stays for now
    expect(t.asked[0]).toMatchObject({ type: 'question', message: 'Close the window without saving?', buttons: ['Close Without Saving', 'Keep Editing'], defaultId: 1, cancelId: 1 });
    await t.answer(0);
    expect(t.actions()).toEqual(['close', 'close']);
    // the second close: the page holds again, and this time it is let go at once
    const again = t.unloadEvent();
    t.contents.emit('will-prevent-unload', again);
    expect(again.prevented).toBe(true);
    expect(t.asked).toHaveLength(1);
  });

  it('Keep Editing keeps the window and calls a waiting quit off', async () => {
    const t = setup();
    t.win.close();
    t.contents.emit('will-prevent-unload', t.unloadEvent());
    await t.answer(1);
    expect(t.actions()).toEqual(['close', 'edit-kept']);
    // a later close asks again
    t.win.close();
    const next = t.unloadEvent();
    t.contents.emit('will-prevent-unload', next);
    expect(next.prevented).toBe(false);
    expect(t.asked).toHaveLength(2);
  });

  it('a reload (no close before it) asks about reloading and reloads', async () => {
    const t = setup();
    t.contents.emit('will-prevent-unload', t.unloadEvent());
    expect(t.asked[0]).toMatchObject({ message: 'Reload without saving?', buttons: ['Reload Without Saving', 'Keep Editing'] });
    await t.answer(0);
    expect(t.actions()).toEqual(['reload']);
  });
});
