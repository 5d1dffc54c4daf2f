// A textarea that grows with its text (one line when empty, as PocketBase's text inputs), up to 60% of
// the window, then scrolls. `use:`-free: call it from the element's ref.
export const AUTO_GROW_MAX = 0.6;

export function autoGrow(el: HTMLTextAreaElement): void {
  const fit = () => {
    el.style.height = 'auto';
    const max = Math.round(window.innerHeight * AUTO_GROW_MAX);
    const border = el.offsetHeight - el.clientHeight;
    el.style.height = `${Math.min(el.scrollHeight + border, max)}px`;
    el.style.overflowY = el.scrollHeight + border > max ? 'auto' : 'hidden';
  };
  el.addEventListener('input', fit);
  // The value arrives after the ref runs, and the panel may still be laying out: fit once it has.
  requestAnimationFrame(fit);
}
