// One Deskbase at a time per user: a second launch hands over to the first, which shows its window.
export interface FocusableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/** Brings the window forward; false when there is none (the caller may open one). */
export function focusWindow(win: FocusableWindow | null | undefined): boolean {
  if (!win || win.isDestroyed()) return false;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
  return true;
}
