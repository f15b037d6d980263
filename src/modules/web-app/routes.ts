// The web app (web/, built by `npm run build:web` into web/dist) served at /: hashed assets
// cached for a year, the page itself revalidated every time, and a strict Content-Security-Policy
// (same-origin scripts only, no inline script or style). Any GET that is not the API, health or
// a file answers the page, so deep links (/security, /join, …) work on reload.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { METRICS_PATH } from '../../platform/metrics/listener.js';
import { projectRoot } from '../../platform/paths.js';

export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', WEB_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

export async function webAppRoutes(app: FastifyInstance, opts: { root?: string } = {}): Promise<void> {
  const root = opts.root ?? join(projectRoot, 'web', 'dist');
  const built = existsSync(join(root, 'index.html'));
  if (built) await app.register(fastifyStatic, { root, serve: false, cacheControl: false });

  const config = { rateLimit: 'web' as const };
  const handler = async (request: { url: string }, reply: FastifyReply) => {
    const path = decodeURIComponent(request.url.split('?')[0] ?? '/');
    // /metrics too: it is served only on METRICS_PORT, and a scraper pointed at the public port
    // by mistake should get a plain 404, not the page.
    if (path === '/api' || path.startsWith('/api/') || path.startsWith('/health') || path === METRICS_PATH) return reply.callNotFound();
    if (!built) {
      return pageHeaders(reply).code(503).header('cache-control', 'no-store').type('text/plain; charset=utf-8')
        .send('The web app is not built: run `npm run build:web` (npm start does it).\n');
    }
    const relative = normalize(path).replace(/^[/\\]+/, '');
    const file = join(root, relative);
    const isFile = relative !== '' && !relative.split(sep).includes('..') && file.startsWith(root + sep) && existsSync(file) && statSync(file).isFile();
    if (isFile && relative !== 'index.html') {
      // Vite names assets by content hash: they never change under the same name.
      const immutable = relative.startsWith(`assets${sep}`);
      return pageHeaders(reply).header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600').sendFile(relative);
    }
    if (path.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(path)) return reply.callNotFound();
    return pageHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
  };
  app.get('/', { config, schema: { hide: true } }, handler);
  app.get('/*', { config, schema: { hide: true } }, handler);
}
