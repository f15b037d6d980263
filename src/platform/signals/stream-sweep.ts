import type { HubDeps } from './hub-types.js';
import type { StreamDelivery } from './stream-delivery.js';
import type { StreamRegistry } from './stream-registry.js';

/**
 * The periodic pass over every stream on this node, every `heartbeatMs`: a heartbeat keeps
 * proxies from timing out an idle stream and finds dead peers; a stream whose credential
 * expired is closed; and a client that has not drained its full buffer within `stallMs` is
 * dropped as a slow consumer (it resumes from its last received id, on any node).
 */
export function createStreamSweep(deps: Pick<HubDeps, 'now' | 'limits'>, registry: StreamRegistry, delivery: StreamDelivery) {
  const { limits } = deps;
  let heartbeat: NodeJS.Timeout | undefined;

  function sweep(): void {
    const now = deps.now();
    for (const group of registry.groups.values()) {
      for (const stream of [...group.streams]) {
        if (now >= stream.expiresAt) registry.close(stream, 'expired');
        else if (!stream.stalled) stream.sink.heartbeat();
        // Stalled past the limit, by the injected clock: drained meanwhile resumes, else dropped.
        else if (now - (stream.stalledAt ?? now) >= limits.stallMs) {
          if (stream.sink.buffered() < limits.bufferBytes) delivery.resume(stream);
          else registry.close(stream, 'slow_consumer');
        }
      }
    }
  }

  return {
    start(): void {
      heartbeat ??= setInterval(sweep, limits.heartbeatMs);
      heartbeat.unref();
    },

    stop(): void {
      clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
