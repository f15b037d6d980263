import type { FastifyInstance } from 'fastify';

/** GET /api/v1/openapi.json: the OpenAPI 3.1 document generated from the route schemas. */
export async function openApiDocumentRoute(app: FastifyInstance) {
  app.get('/openapi.json', { config: { rateLimit: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return app.swagger();
  });
}
