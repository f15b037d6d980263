import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { DeprecatedRoute } from '../../config.js';

/**
 * Routes named in DEPRECATED_ROUTES ("METHOD /api/v1/path") announce it on every response:
 * `Deprecation: @<unix seconds>` (RFC 9745 §2), `Sunset: <HTTP-date>` (RFC 8594 §3) and a link
 * to the migration notes for both relations.
 */
export const deprecationPlugin = fp(async (app: FastifyInstance, opts: { routes: Record<string, DeprecatedRoute> }) => {
  const prepared = new Map<string, Record<string, string>>();
  for (const [route, spec] of Object.entries(opts.routes)) {
    prepared.set(route, {
      Deprecation: `@${Math.floor(spec.deprecatedAt.getTime() / 1000)}`,
      Sunset: spec.sunsetAt.toUTCString(),
      Link: `<${spec.link}>; rel="deprecation", <${spec.link}>; rel="sunset"`,
    });
  }
  if (prepared.size === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const headers = prepared.get(`${request.method} ${request.routeOptions.url}`);
    if (headers) reply.headers(headers);
  });
}, { name: 'deprecation' });
