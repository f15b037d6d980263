import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.js';
import type { FieldError } from '../../errors.js';

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

/** Maps anything thrown to our one error class; unknown errors become an opaque 500. */
function toAppError(error: FastifyError & { validation?: AjvIssue[]; validationContext?: string }): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const errors = fieldErrors(error.validation, error.validationContext);
    return new AppError(400, 'validation_failed', 'Validation failed', { detail: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', 'Unsupported media type', { detail: 'send application/json' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'Payload too large', { detail: 'the request body is larger than the service accepts' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'invalid_json', 'Invalid JSON', { detail: 'the body is not valid JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'invalid_content_length', 'Invalid Content-Length', { detail: 'Content-Length does not match the body' });
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new AppError(400, 'bad_request', 'Bad request', { detail: 'the request could not be read' });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode, 'bad_request', 'Bad request', { detail: 'the request could not be processed' });
  }
  return new AppError(500, 'internal_error', 'Internal error', { detail: 'something went wrong on our side; try again later', cause: error });
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError, challenge = 'DPoP'): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  // RFC 9110 §15.5.2: every 401 names a scheme the client can answer with.
  if (error.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', challenge);
  return reply
    .code(error.status)
    .type('application/problem+json')
    .send({
      type: problemType(error.code),
      title: error.title,
      status: error.status,
      detail: error.expose ? error.detail : 'something went wrong on our side; try again later',
      code: error.code,
      request_id: String(request.id),
      ...(error.errors ? { errors: error.errors } : {}),
    });
}

/** RFC 9457 error envelope for every failure, routed or not. No stack, SQL or secret leaves here. */
export const problemPlugin = fp(async (app: FastifyInstance, opts: { challenge: string }) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code, detail: appError.detail }, 'request refused');
    return sendProblem(request, reply, appError, opts.challenge);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, new AppError(404, 'not_found', 'Not found', { detail: `no route for ${request.method} ${request.url.split("?")[0]?.slice(0, 200)}` })),
  );
}, { name: 'problem' });
