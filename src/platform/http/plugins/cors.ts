import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Cross-origin access for browser clients on other origins (CORS_ORIGINS). Same-origin use (the
 * web app served by the service) needs none. The headers a DPoP client must read are exposed
 * (STANDARDS: DPoP-Nonce and WWW-Authenticate), with our own response headers; no cookies are
 * used, so credentials stay off.
 */
export const corsPlugin = fp(async (app: FastifyInstance, opts: { origins: string[] }) => {
  if (opts.origins.length === 0) return;
  await app.register(cors, {
    origin: opts.origins.includes('*') ? '*' : opts.origins,
    methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'DPoP', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'VID-Step-Up', 'VID-Request-Id', 'Last-Event-ID'],
    exposedHeaders: [
      'WWW-Authenticate', 'DPoP-Nonce', 'Date', 'VID-Request-Id', 'VID-API-Version', 'VID-Idempotent-Replay', 'ETag', 'Retry-After',
      'RateLimit', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset',
      'Quota-Limit', 'Quota-Remaining', 'Quota-Reset', 'Deprecation', 'Sunset', 'Link', 'Content-Disposition',
    ],
    credentials: false,
    maxAge: 600,
    // A bare OPTIONS (no Origin or Access-Control-Request-Method) is no malformed preflight but a
    // plain OPTIONS request (RFC 9110 §9.3.7): 204, not the plugin's 400 text/plain.
    strictPreflight: false,
  });
}, { name: 'cors' });
