import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What of a URL may be logged: the path, never the query string (share-link tokens travel in
 * ?token=), and a share link's page /s/<token> with the token taken out.
 */
export function loggablePath(url: string): string {
  return (url.split('?')[0] ?? '').replace(/^\/s\/[^/]+/, '/s/[token]');
}

/** The request as a log record shows it (pino's `req` serializer). */
export function loggableRequest(req: { method: string; url: string; ip?: string }): { method: string; path: string; ip?: string } {
  return { method: req.method, path: loggablePath(req.url), ip: req.ip };
}

/**
 * One record per request, written once it is answered: "GET /api/v1/me 200 4.2 ms", with the
 * request, status and time as fields. Fastify writes two ("incoming request", then "request
 * completed"); one that holds all of it reads as a line on a terminal and costs one write.
 * Fastify's other lines (errors, a route not found) stay as they are.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const ms = reply.elapsedTime;
    const line = `${request.method} ${loggablePath(request.url)} ${reply.statusCode} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: ms }, `${line}, failed`);
    else reply.log.info({ req: request, res: reply, responseTime: ms }, line);
  }
}
