import { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

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

const REAL = Symbol('vid.requestLogger');
const BINDINGS = Symbol('vid.requestLoggerBindings');

interface PinoLike extends FastifyBaseLogger {
  levels?: { values: Record<string, number> };
  isLevelEnabled?(level: string): boolean;
}

interface Deferred {
  [REAL]?: FastifyBaseLogger;
  [BINDINGS]: object;
}

/** Per parent logger: its methods that need the request's child, which they make on first use. */
const deferredPrototypes = new WeakMap<object, object>();

function deferredPrototype(parent: PinoLike): object {
  let prototype = deferredPrototypes.get(parent);
  if (prototype === undefined) {
    const real = (deferred: Deferred) => (deferred[REAL] ??= parent.child(deferred[BINDINGS]));
    const methods: Record<string, unknown> = {};
    for (const level of Object.keys(parent.levels!.values)) {
      methods[level] = function (this: Deferred & PinoLike, ...args: unknown[]) {
        // A level not written makes no child: its method does nothing either way.
        if (!this.isLevelEnabled!(level)) return;
        return (real(this) as unknown as Record<string, (...a: unknown[]) => unknown>)[level]!(...args);
      };
    }
    methods.child = function (this: Deferred, ...args: Parameters<FastifyBaseLogger['child']>) {
      return real(this).child(...args);
    };
    methods.bindings = function (this: Deferred) {
      return (real(this) as unknown as { bindings(): object }).bindings();
    };
    methods.setBindings = function (this: Deferred, bindings: object) {
      return (real(this) as unknown as { setBindings(b: object): void }).setBindings(bindings);
    };
    prototype = Object.assign(Object.create(parent) as object, methods);
    deferredPrototypes.set(parent, prototype);
  }
  return prototype;
}

/**
 * Fastify's child logger factory, deferred: each request's logger (its request id as a binding)
 * is made the first time the request writes a record, not for every request. At the level
 * production runs (warn) an answered request writes none, and pino's child, which serialises
 * its bindings when made, was a measurable part of a request's CPU. Until then the request's
 * logger is its parent's (level, isLevelEnabled); every record goes through the real child, with
 * the request id. A child with its own level or serializers (a route's logLevel) is made at once.
 */
export function deferredChildLogger(logger: FastifyBaseLogger, bindings: object, options: NonNullable<Parameters<FastifyBaseLogger['child']>[1]>): FastifyBaseLogger {
  const parent = logger as PinoLike;
  if (options.level !== undefined || options.serializers !== undefined || !parent.levels || typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options);
  const deferred = Object.create(deferredPrototype(parent)) as Deferred & FastifyBaseLogger;
  deferred[BINDINGS] = bindings;
  return deferred;
}
