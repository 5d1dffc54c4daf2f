// A stopped hook's writes (EventScope.stopped, core/events.ts): what a transaction's body becomes when the
// hook that asked for it may be stopped before it commits. A leaf: the write paths and the hooks' host
// operations import it.

/**
 * `body`, a transaction's body, failing with `stopped`'s reason (so the transaction rolls back) when
 * `stopped` fired before it begins or by its end (EventScope.stopped); `body` itself without one.
 */
export function stoppable<A extends unknown[], T>(stopped: AbortSignal | undefined, body: (...args: A) => Promise<T> | T): (...args: A) => Promise<T> | T {
  // every write without a hook passes here (the change feed): no wrapper for it
  if (stopped === undefined) return body;
  return async (...args) => {
    stopped.throwIfAborted();
    const result = await body(...args);
    stopped.throwIfAborted();
    return result;
  };
}
