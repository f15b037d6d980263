import { advance, seen } from './feed.js';
import type { FeedItem } from './feed.js';
import type { CloseReason, HubDeps, Stream } from './hub-types.js';

/**
 * Writing read items to one stream, and backpressure: a connection holds no more than its
 * socket buffer. When that passes `bufferBytes` the stream stops taking items (its position
 * stays put) and waits for the client to drain it; then its account is woken to read again
 * from where the stream stopped. The sweep (stream-sweep.ts) drops it if the drain never comes.
 */
export interface DeliveryHooks {
  close(stream: Stream, reason: CloseReason): void;
  /** The stream can take more: its account reads its feed again. */
  wake(accountId: string): void;
}

export function createStreamDelivery(deps: Pick<HubDeps, 'now' | 'toSignal' | 'limits'>, hooks: DeliveryHooks) {
  const { limits } = deps;
  let peakBuffered = 0;

  function stall(stream: Stream): void {
    if (stream.stalled) return;
    stream.stalled = true;
    stream.stalledAt = deps.now();
    stream.sink.onDrain(() => resume(stream));
  }

  function resume(stream: Stream): void {
    if (stream.closed || !stream.stalled) return;
    stream.stalled = false;
    stream.stalledAt = undefined;
    hooks.wake(stream.accountId);
  }

  /** Writes the items this stream has not had yet, until its buffer is full. */
  function deliver(stream: Stream, items: FeedItem[]): void {
    if (deps.now() >= stream.expiresAt) {
      hooks.close(stream, 'expired');
      return;
    }
    for (const item of items) {
      if (stream.closed) return;
      if (seen(stream.position, item)) continue;
      if (stream.sink.buffered() >= limits.bufferBytes) {
        stall(stream);
        return;
      }
      const position = advance(stream.position, item);
      stream.sink.send(deps.toSignal(stream.accountId, item, position));
      stream.position = position;
      const buffered = stream.sink.buffered();
      if (buffered > peakBuffered) peakBuffered = buffered;
    }
  }

  return {
    deliver,
    resume,
    /** The most any stream has held unsent, for the metrics. */
    peakBuffered: () => peakBuffered,
  };
}

export type StreamDelivery = ReturnType<typeof createStreamDelivery>;
