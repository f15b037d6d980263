import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import type { Metrics, ShedReason } from '../../metrics/metrics.js';

export interface SheddingOptions {
  maxEventLoopDelayMs: number;
  maxInFlight: number;
  maxHeapUsedMb: number;
  retryAfterSeconds: number;
  /** 503s by reason. */
  metrics: Metrics;
}

/** @fastify/under-pressure's check names, as the shed metric's reasons. */
const PRESSURE_REASONS: Record<string, ShedReason> = {
  [underPressure.TYPE_EVENT_LOOP_DELAY]: 'event_loop_delay',
  [underPressure.TYPE_EVENT_LOOP_UTILIZATION]: 'event_loop_utilization',
  [underPressure.TYPE_HEAP_USED_BYTES]: 'heap',
  [underPressure.TYPE_RSS_BYTES]: 'rss',
  [underPressure.TYPE_HEALTH_CHECK]: 'health_check',
};

/**
 * Under overload the service answers 503 + Retry-After at once instead of queueing (PRODUCT §0):
 * event-loop delay and heap through @fastify/under-pressure, plus a cap on requests in flight.
 * Health probes are never shed.
 */
export const loadSheddingPlugin = fp(async (app: FastifyInstance, opts: SheddingOptions) => {
  const overloaded = (detail: string) => refuse('overloaded', { detail, retryAfterSeconds: opts.retryAfterSeconds });

  await app.register(underPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelayMs,
    maxHeapUsedBytes: opts.maxHeapUsedMb * 1024 * 1024,
    retryAfter: opts.retryAfterSeconds,
    // A rejected promise reaches our error handler, which writes the problem document.
    pressureHandler: async (request, _reply, type, value) => {
      if (request.url.startsWith('/health/')) return;
      // A sample window with no loop turns at all (right after a blocking start) reads as an
      // infinite delay: that is no measurement, so nothing is shed for it.
      if (type === underPressure.TYPE_EVENT_LOOP_DELAY && !Number.isFinite(value)) return;
      opts.metrics.shed(PRESSURE_REASONS[type] ?? 'other');
      throw overloaded(`the server is under pressure (${type}); retry later`);
    },
  });

  if (opts.maxInFlight <= 0) return;
  let inFlight = 0;
  // Callback hooks: nothing here waits, so no promise is made per request.
  app.addHook('onRequest', (request, _reply, done) => {
    // Streams live for hours and an upgraded WebSocket never reaches onResponse: they are
    // bounded by the per-account stream limit instead.
    if (request.routeOptions.config?.stream) return done();
    if (inFlight >= opts.maxInFlight && !request.url.startsWith('/health/')) {
      opts.metrics.shed('in_flight');
      return done(overloaded('too many requests in flight; retry later'));
    }
    inFlight++;
    (request as { countedInFlight?: boolean }).countedInFlight = true;
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if ((request as { countedInFlight?: boolean }).countedInFlight) inFlight--;
    done();
  });
}, { name: 'load-shedding' });
