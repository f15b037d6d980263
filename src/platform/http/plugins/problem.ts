import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, refuse } from '../../errors.js';
import type { FieldError } from '../../errors.js';
import type { RefusalCode } from '../../refusals.js';
import type { RouteTable } from '../route-table.js';
import { AUTHENTICATED_DEFAULT, isAuthenticatedRequest } from './cache-control.js';
import { noteRefusal } from '../request-log.js';
import { limitPolicyOfRefusal } from '../../metrics/metrics.js';
import { databaseUnavailable, foreignKeyViolation } from '../../store/db.js';
import type { Metrics } from '../../metrics/metrics.js';

/** Problem type URIs are URNs: stable names, not links that could rot. */
export const problemType = (code: string) => `urn:vid:problem:${code}`;

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldErrors(issues: AjvIssue[], part: string | undefined): FieldError[] {
  return issues.map((issue) => {
    const missing = issue.keyword === 'required' ? `/${String(issue.params.missingProperty)}` : '';
    const extra = issue.keyword === 'additionalProperties' ? `/${String(issue.params.additionalProperty)}` : '';
    const prefix = part && part !== 'body' ? `${part}:` : '';
    return { path: `${prefix}${issue.instancePath}${missing}${extra}` || '/', code: issue.keyword, message: issue.message ?? 'invalid' };
  });
}

/** Seconds a client waits before retrying while the database is away: a restart or failover takes a few. */
export const DATABASE_RETRY_AFTER_S = 2;

/** Maps anything thrown to our one error class; unknown errors become an opaque 500. */
function toAppError(error: FastifyError & { validation?: AjvIssue[]; validationContext?: string }, bodyRefusals?: { tooLarge: RefusalCode; mediaType: RefusalCode }): AppError {
  if (error instanceof AppError) return error;
  if (bodyRefusals && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return refuse(bodyRefusals.tooLarge, 'the body is larger than this route accepts');
  if (bodyRefusals && error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return refuse(bodyRefusals.mediaType, 'this route does not take a body of this media type');
  if (error.validation) {
    const errors = fieldErrors(error.validation, error.validationContext);
    return refuse('validation_failed', { detail: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return refuse('unsupported_media_type', 'send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return refuse('payload_too_large', 'the request body is larger than the service accepts');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return refuse('invalid_json', 'the body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return refuse('invalid_content_length', 'Content-Length does not match the body');
  }
  // The last line of defence against a race the services' locks missed: a row the request names
  // (a profile being granted) was deleted meanwhile. Nothing was written; the client may retry.
  if (foreignKeyViolation(error)) return refuse('concurrent_change', { detail: 'something this request refers to was removed meanwhile; read it again and retry', retryAfterSeconds: 1, cause: error });
  // The database went away under the request (restart, failover, a killed backend): nothing was
  // committed, and a retry a moment later reaches it again (RFC 9110 §15.6.4, §10.2.3).
  if (databaseUnavailable(error)) return refuse('database_unavailable', { detail: 'the database does not answer; try again shortly', retryAfterSeconds: DATABASE_RETRY_AFTER_S, cause: error });
  if (error instanceof SyntaxError || error.statusCode === 400) return refuse('bad_request', 'the request could not be read');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new BadRequestWithStatus(error.statusCode);
  }
  return refuse('internal_error', { detail: 'something went wrong on our side; try again later', cause: error });
}

/** A 4xx Fastify raised itself (not a refusal of ours): its status, our bad_request envelope. */
class BadRequestWithStatus extends AppError {
  override readonly status: number;
  constructor(status: number) {
    super('bad_request', { detail: 'the request could not be processed' });
    this.status = status;
  }
}

/**
 * The headers a refusal implies: RFC 9110 §15.5.2, every 401 names a scheme the client can
 * answer with (RFC 9449 §7.1: with the error and our algorithms when one is named), and
 * Retry-After (RFC 9110 §10.2.3) when the refusal says when to come back.
 */
export function challengeFor(error: AppError, challenge: string): string | undefined {
  if (error.challengeError) return `${challenge}, error="${error.challengeError}", error_description="${error.detail}"`;
  return error.status === 401 ? challenge : undefined;
}

function refusalHeaders(reply: FastifyReply, error: AppError, challenge: string): void {
  const www = challengeFor(error, challenge);
  if (www) reply.header('WWW-Authenticate', www);
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
}

/** The RFC 9457 document for a refusal; also written where no Fastify reply exists (edge.ts). */
export function problemDocument(error: AppError, requestId: string): Record<string, unknown> {
  return {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.expose ? error.detail : 'something went wrong on our side; try again later',
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.extensions ?? {}),
  };
}

const refusals = new WeakMap<FastifyReply, AppError>();

/** The refusal a reply answers with, if it is one (read by the hooks that run as it is sent). */
export const refusalOf = (reply: FastifyReply): AppError | undefined => refusals.get(reply);

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError, challenge = 'DPoP'): FastifyReply {
  // Said in the request's one log record, not a record of its own.
  noteRefusal(request, error.code, error.detail);
  refusals.set(reply, error);
  refusalHeaders(reply, error, challenge);
  // PRODUCT §0: no browser may reuse a refusal of an authenticated request once the state changed,
  // even where the route had meant its success to be revalidated (`private, no-cache`).
  if (isAuthenticatedRequest(request)) reply.header('Cache-Control', AUTHENTICATED_DEFAULT);
  return reply.code(error.status).type('application/problem+json').send(problemDocument(error, String(request.id)));
}

/** RFC 9457 error envelope for every failure, routed or not. No stack, SQL or secret leaves here. */
export const problemPlugin = fp(async (app: FastifyInstance, opts: { challenge: string; routes?: RouteTable; metrics?: Metrics }) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request.routeOptions?.config?.bodyRefusals);
    // The rate-limit plugin counts its own 429s (it knows the policy); the services' limits are counted here.
    const policy = appError.status === 429 ? limitPolicyOfRefusal(appError.code) : undefined;
    if (policy) opts.metrics?.rateLimited(policy);
    // A node that sheds load, drains or lost a dependency says so on purpose (503, exposed): a
    // warning without a stack. Anything else past 500 is a failure of ours, with its stack.
    if (appError.status >= 500 && appError.expose) request.log.warn({ code: appError.code, detail: appError.detail }, 'request refused: service unavailable');
    else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, appError, opts.challenge);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const known = opts.routes?.lookup(path);
    if (known?.allow) {
      // RFC 9110 §15.5.6: a 405 names the methods the resource has in Allow; OPTIONS (§9.3.7),
      // when no CORS preflight took it, answers that list and nothing else.
      reply.header('Allow', known.allow);
      if (request.method === 'OPTIONS') return reply.code(204).send();
      return sendProblem(request, reply, refuse('method_not_allowed', `${request.method} is not supported here; use ${known.allow}`));
    }
    // RFC 9110 §15.5.15: the router refuses a parameter past its limit only when no other route
    // (the web app's GET /*) catches the path; both roads answer 414.
    if (known?.tooLong) return sendProblem(request, reply, refuse('uri_too_long', `a path segment is longer than ${opts.routes?.maxParamLength} characters`));
    return sendProblem(request, reply, refuse('not_found', `no route for ${request.method} ${path.slice(0, 200)}`));
  });
}, { name: 'problem' });
