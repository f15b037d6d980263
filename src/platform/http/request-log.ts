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

/** Why a request was refused (its problem's code and detail), for its one record. */
const refusals = new WeakMap<FastifyRequest, { code: string; detail?: string }>();

/** Says in the request's record why it was refused, instead of a record of its own. */
export function noteRefusal(request: FastifyRequest, code: string, detail: string | undefined): void {
  refusals.set(request, { code, detail });
}

/**
 * One record per request, written once it is answered: "GET /api/v1/me 200 4.2 ms", with the
 * request, status and time as fields; a refusal adds its code to the line ("POST /api/v1/me/fields
 * 400 3.1 ms validation_failed") and its detail as a field. Fastify writes two records
 * ("incoming request", "request completed") and the refusal was a third; one that holds all of it
 * reads as one line on a terminal. Fastify's other lines (a failure's error) stay as they are.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // At a level that writes no info records (production runs at warn), an answered request has
    // no record: return before building its line, which would cost every request for nothing.
    // (pino's isLevelEnabled; the logger of a disabled log has none and writes nothing anyway.)
    if (!error && (reply.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === false) return;
    const ms = reply.elapsedTime;
    const refusal = refusals.get(request);
    const line = `${request.method} ${loggablePath(request.url)} ${reply.statusCode} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms${refusal ? ` ${refusal.code}` : ''}`;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: ms }, `${line}, failed`);
    else reply.log.info({ req: request, res: reply, responseTime: ms, ...(refusal && { refusal }) }, line);
  }
}
