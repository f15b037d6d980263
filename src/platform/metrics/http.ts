import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The route label of a request no route matched: one value, whatever path was asked for. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods Fastify routes; anything else (Node accepts a few dozen) is one label value. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

export interface RequestMetricsOptions {
  observe(method: string, route: string, statusClass: string, seconds: number): void;
}

/**
 * Counts every answered request and its latency, labelled by route template (Fastify's
 * routeOptions.url, `/api/v1/profiles/:id`), never the raw path, which would make a series per
 * id or username. Registered only when metrics are on, so with them off the request path has
 * no hook at all. `hasPlugin('vid-request-metrics')` tells which (a test checks it).
 * An event stream that opens hijacks its reply and never reaches onResponse (its life is no
 * latency): open streams are the stream hub's gauge; a refused stream request is counted here.
 */
export const requestMetricsPlugin = fp(async (app: FastifyInstance, opts: RequestMetricsOptions) => {
  // A callback hook: nothing to wait for, so no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    const statusClass = STATUS_CLASSES[Math.floor(reply.statusCode / 100)] ?? 'other';
    opts.observe(method, request.routeOptions.url ?? UNMATCHED_ROUTE, statusClass, reply.elapsedTime / 1000);
    done();
  });
}, { name: 'vid-request-metrics' });
