// Notices: at most three at once, a repeated one replaces its twin, successes leave after 4 s and
// errors after 8 s (or when dismissed), and a burst of successes never pushes an unread error away.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@solidjs/testing-library';
import { ToastProvider, useToast, withToast, type Toast, type ToastFn } from '../../renderer/components/toasts.js';

const t = (id: number, kind: Toast['kind'], text = `n${id}`): Toast => ({ id, kind, text });
const ids = (list: Toast[]) => list.map((x) => x.id);

describe('withToast', () => {
  it.each([
    ['adds to an empty list', [], t(1, 'success'), [1]],
    ['keeps three', [t(1, 'success'), t(2, 'info')], t(3, 'success'), [1, 2, 3]],
    ['drops the oldest past three', [t(1, 'success'), t(2, 'success'), t(3, 'success')], t(4, 'success'), [2, 3, 4]],
    ['drops the oldest non-error first', [t(1, 'error'), t(2, 'success'), t(3, 'success')], t(4, 'success'), [1, 3, 4]],
    ['drops the oldest error when all are errors', [t(1, 'error'), t(2, 'error'), t(3, 'error')], t(4, 'success'), [2, 3, 4]],
    ['replaces a twin instead of stacking', [t(1, 'success', 'Record created.'), t(2, 'info')], t(3, 'success', 'Record created.'), [2, 3]],
    ['keeps same text of another kind', [t(1, 'info', 'Saved.')], t(2, 'error', 'Saved.'), [1, 2]],
  ])('%s', (_name, list, toast, expected) => expect(ids(withToast(list, toast))).toEqual(expected));
});

describe('ToastProvider', () => {
  let push: ToastFn = () => () => undefined;
  beforeEach(() => {
    vi.useFakeTimers();
    render(() => (
      <ToastProvider>
        {(() => {
          push = useToast();
          return null;
        })()}
      </ToastProvider>
    ));
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });
  const shown = () => [...document.querySelectorAll('.toast span')].map((s) => s.textContent);

  it('shows at most three, successes for 4 s and errors for 8 s', () => {
    push('Server unreachable.', 'error');
    for (const n of [1, 2, 3, 4]) push(`Saved ${n}.`);
    expect(shown()).toEqual(['Server unreachable.', 'Saved 3.', 'Saved 4.']);
    vi.advanceTimersByTime(3900);
    expect(shown()).toHaveLength(3);
    vi.advanceTimersByTime(200);
    expect(shown()).toEqual(['Server unreachable.']);
    vi.advanceTimersByTime(3800);
    expect(shown()).toEqual(['Server unreachable.']);
    vi.advanceTimersByTime(200);
    expect(shown()).toEqual([]);
  });

  it('dismisses a notice with its close button', () => {
    push('Could not save.', 'error');
    expect(screen.getByRole('alert').textContent).toContain('Could not save.');
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(shown()).toEqual([]);
  });

  it('takes a notice away early when its sender says the problem is gone, and only that one', () => {
    const gone = push('Not saved: the name is taken.', 'error');
    push('Export failed.', 'error');
    gone();
    expect(shown()).toEqual(['Export failed.']);
  });
});
