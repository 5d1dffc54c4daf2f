// The window opens where it was left: size, position and maximized state are saved in settings.json
// (main/settings.ts) as the window moves, and restored on the next start only where a display still
// shows enough of it (a monitor unplugged since would leave it off screen).
import type { WindowBounds } from './settings.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 };
export const MIN_SIZE = { width: 720, height: 480 };
/** How much of the window must be on a display for its position to be kept: enough to grab its title bar. */
const VISIBLE = { width: 120, height: 40 };

export interface InitialBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

function overlap(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.min(a.x + a.width, b.x + b.width) - x, height: Math.min(a.y + a.height, b.y + b.height) - y };
}

/** `workAreas`: screen.getAllDisplays().map((d) => d.workArea). */
export function initialBounds(saved: WindowBounds | null, workAreas: Rect[]): InitialBounds {
  if (!saved) return { ...DEFAULT_SIZE, maximized: false };
  const largest = workAreas.reduce<Rect | null>((best, a) => (!best || a.width * a.height > best.width * best.height ? a : best), null);
  const width = Math.max(MIN_SIZE.width, largest ? Math.min(saved.width, largest.width) : saved.width);
  const height = Math.max(MIN_SIZE.height, largest ? Math.min(saved.height, largest.height) : saved.height);
  const rect = { x: saved.x, y: saved.y, width, height };
  const seen = workAreas.some((area) => {
    const o = overlap(rect, area);
    return o.width >= VISIBLE.width && o.height >= VISIBLE.height;
  });
  // Off every display: the OS centres it on the primary one.
  return seen ? { ...rect, maximized: saved.maximized } : { width, height, maximized: saved.maximized };
}

export interface TrackedWindow {
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close', listener: () => void): unknown;
  /** The bounds the window returns to when it is unmaximized. */
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isMinimized(): boolean;
  isDestroyed(): boolean;
}

/** Saves the window's bounds (debounced while it moves, at once when it closes). Returns a flush. */
export function trackWindowState(win: TrackedWindow, save: (bounds: WindowBounds) => void, debounceMs = 500): () => void {
  let timer: NodeJS.Timeout | null = null;
  let last: WindowBounds | null = null;
  const read = () => {
    // A minimized window's normal bounds are still right; a destroyed one has none.
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    const next = { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height), maximized: win.isMaximized() };
    if (last && JSON.stringify(last) === JSON.stringify(next)) return;
    last = next;
    save(next);
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    read();
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event, later);
  win.on('close', flush);
  return flush;
}
