// The bytes of request bodies held in memory at once, across all requests: each body is bounded on its
// own (body.ts), but many large bodies arriving together add up (and their copies), and the parser
// thread's queue grew with them. Bytes are taken as a body arrives (its declared length up front) and
// given back once its response is sent; past the capacity the request gets a 503 and its body is drained
// unread. The parser queue holds only bodies inside the capacity, so it is bounded by it too.
import { ApiError } from '../errors.js';

/** Three record bodies of the largest size at once. */
export const DEFAULT_BODY_BYTES_IN_FLIGHT = 96 * 1024 * 1024;

export const serverBusy = () =>
  new ApiError(503, 'The server is receiving too many large requests at once; try again in a moment.');

export class BodiesInFlight {
  private used = 0;
  constructor(readonly capacity = DEFAULT_BODY_BYTES_IN_FLIGHT) {}

  /** The share of one request: take() throws the 503 past the capacity; release() gives all back once. */
  forRequest(): { take(bytes: number): void; release(): void } {
    let held = 0;
    return {
      take: (bytes) => {
        if (this.used + bytes > this.capacity) throw serverBusy();
        this.used += bytes;
        held += bytes;
      },
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }

  inUse(): number {
    return this.used;
  }
}
