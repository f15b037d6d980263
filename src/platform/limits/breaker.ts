/**
 * A circuit breaker in front of Redis. Redis holds only what can be kept more loosely for a
 * while (counters, proof ids), so when it fails the caller's fallback answers instead (each
 * node's memory, the database) and the request never waits on it:
 * - closed: every call goes to Redis, each bounded by the client's command timeout;
 * - open (after a failure, or while the client is not connected): calls go straight to the
 *   fallback for `openMs`;
 * - then one call tries Redis again (half-open); success closes the breaker, failure reopens it.
 */
export interface Breaker {
  run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T>;
  /** Milliseconds since the breaker last sent a call to the fallback; Infinity if never. */
  sinceFallbackMs(): number;
  readonly open: boolean;
}

export interface BreakerOptions {
  /** Whether the client is connected now (ioredis's status is 'ready'). */
  connected(): boolean;
  /** A monotonic clock in ms (the breaker times I/O, not the service's clock of record). */
  now?(): number;
  openMs: number;
  onOpen?(error: unknown): void;
  onClose?(): void;
}

export function createBreaker(options: BreakerOptions): Breaker {
  const clock = options.now ?? (() => performance.now());
  let openUntil = 0;
  let probing = false;
  let lastFallbackAt = -Infinity;
  let tripped = false;

  function trip(error: unknown): void {
    openUntil = clock() + options.openMs;
    if (!tripped) options.onOpen?.(error);
    tripped = true;
  }

  return {
    sinceFallbackMs: () => clock() - lastFallbackAt,
    get open() {
      return tripped;
    },
    async run(primary, fallback) {
      const now = clock();
      const closed = !tripped;
      // Half-open: one call at a time finds out whether Redis is back.
      const mayTry = options.connected() && (closed || (now >= openUntil && !probing));
      if (!mayTry) {
        if (!options.connected() && !tripped) trip(new Error('not connected'));
        lastFallbackAt = now;
        return fallback();
      }
      if (!closed) probing = true;
      try {
        const result = await primary();
        if (tripped) {
          tripped = false;
          options.onClose?.();
        }
        return result;
      } catch (error) {
        trip(error);
        lastFallbackAt = clock();
        return fallback();
      } finally {
        if (!closed) probing = false;
      }
    },
  };
}
