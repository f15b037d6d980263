import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { AppError } from '../../platform/errors.js';
import type { RateLimits } from '../../platform/http/plugins/rate-limit.js';
import type { DavPrincipal } from '../dav-tokens/service.js';
import { DavError } from './dav-error.js';
import { ALLOWED } from './dav.js';
import type { DavHandler } from './dav.js';
import { DAV_PREFIX } from './resources.js';
import { errorBody } from './xml.js';

/**
 * The address book over HTTP (PRODUCT §9, CARDDAV.md): /.well-known/carddav and everything under
 * /dav/, in a scope of their own. A DAV client never meets the JSON API's conventions: no DPoP,
 * no idempotency keys, no JSON body parser, and refusals in the protocol's shape (a D:error or
 * a line of text, never problem+json); the API's routes never meet DAV's methods.
 */

/** RFC 4918, RFC 3253, RFC 3744, RFC 5842 methods a DAV client may send (Node parses all of them). */
const DAV_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'MKCALENDAR', 'ACL', 'BIND', 'UNBIND', 'REBIND', 'SEARCH'];
const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', ...DAV_METHODS] as HTTPMethods[];
/** Request bodies (PROPFIND, REPORT) are small: a multiget of a hundred cards is about 10 KB. */
export const MAX_DAV_BODY = 64 * 1024;
/** RFC 7617 §2, §2.1: the scheme, our realm, and that the password is UTF-8. iOS asks without credentials first. */
const CHALLENGE = 'Basic realm="VID", charset="UTF-8"';
/**
 * The API's plugins skip a route that asks for none of them (dpop-auth, idempotency); requests
 * are counted per address-book password once it is known (below), and an answer before that
 * (a 401, the well-known redirect) per client address, as every answer is (rate-limit plugin).
 */
const ROUTE_CONFIG = { auth: 'none', rateLimit: 'dav', idempotency: 'none' } as const;
/** Not part of the JSON API's OpenAPI document: DAV is described by its RFCs and docs/carddav.md. */
const OUTSIDE_OPENAPI = { hide: true };
const TEXT = 'text/plain; charset=utf-8';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Every failure of a DAV request, in DAV's shape. */
function answerError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof DavError) {
    if (error.status === 405) reply.header('Allow', ALLOWED);
    request.log.info({ status: error.status, detail: error.detail }, 'DAV request refused');
    return error.condition ? reply.code(error.status).type('application/xml; charset=utf-8').send(errorBody(error.condition)) : reply.code(error.status).type(TEXT).send(`${error.detail}\n`);
  }
  if (error instanceof AppError) {
    // The address-book password (401, with the challenge every 401 carries), the failure limit
    // and load shedding (429, 503: Retry-After, RFC 9110 §10.2.3).
    if (error.status === 401) reply.header('WWW-Authenticate', CHALLENGE);
    if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
    if (error.status >= 500 && !error.expose) request.log.error({ err: error }, 'DAV request failed');
    return reply.code(error.status).type(TEXT).send(`${error.expose ? error.detail : 'something went wrong on our side; try again later'}\n`);
  }
  const code = (error as FastifyError).code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).type(TEXT).send(`the body is larger than ${MAX_DAV_BODY} bytes\n`);
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return reply.code(status).type(TEXT).send('the request could not be read\n');
  request.log.error({ err: error }, 'DAV request failed');
  return reply.code(500).type(TEXT).send('something went wrong on our side; try again later\n');
}

/**
 * What a DAV scope reads and answers: bodies as bytes whatever their type (text/xml,
 * application/xml, none), read by the XML reader and capped; failures in DAV's shape.
 */
function davScope(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_DAV_BODY }, (_request, body, done) => done(null, body));
  scope.setErrorHandler(answerError);
}

export async function addressBookRoutes(
  app: FastifyInstance,
  opts: {
    handle: DavHandler;
    /** The address-book passwords (dav-tokens): every request, so a revoked one is refused at once. */
    authenticate(authorization: string | undefined, client: { ip: string; userAgent?: string }): Promise<DavPrincipal>;
    /** Requests a minute per password, and the account's monthly quota, as on the API (PRODUCT §0). */
    rateLimits: Pick<RateLimits, 'countAccount'>;
    /** PUBLIC_ORIGIN: the well-known redirect's absolute Location. */
    publicOrigin: string;
  },
) {
  for (const method of DAV_METHODS) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });

  // RFC 6764 §5: the well-known URI redirects to the service, for every method, and serves nothing
  // itself. The Location is absolute, from PUBLIC_ORIGIN: a client that resolves a relative one
  // against the wrong base went to port 80 (RFC 9110 §10.2.2 allows either; absolute is unambiguous).
  const service = new URL(DAV_PREFIX, opts.publicOrigin).href;
  await app.register(async (wellKnown) => {
    davScope(wellKnown);
    for (const url of ['/.well-known/carddav', '/.well-known/carddav/']) {
      wellKnown.route({ method: METHODS, url, config: ROUTE_CONFIG, schema: OUTSIDE_OPENAPI, exposeHeadRoute: false, handler: async (_request, reply) => reply.code(301).header('Location', service).send() });
    }
  });

  const principals = new WeakMap<FastifyRequest, DavPrincipal>();
  /** Before the body is read: a request without a valid password costs no more than the check. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = await opts.authenticate(header(request, 'authorization'), { ip: request.ip, userAgent: header(request, 'user-agent') });
    // A phone that syncs is a few requests each quarter hour; a loop over full-book queries is not.
    await opts.rateLimits.countAccount(reply, 'dav', principal.tokenId, principal.accountId);
    principals.set(request, principal);
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await opts.handle({
      method: request.method,
      path: request.url.split('?')[0]!,
      depth: header(request, 'depth'),
      ifNoneMatch: header(request, 'if-none-match'),
      body: Buffer.isBuffer(request.body) ? request.body : undefined,
      principal: principals.get(request)!,
    });
    reply.code(answer.status).headers(answer.headers);
    if (answer.body === undefined) return reply.send();
    return reply.send(typeof answer.body === 'string' ? answer.body : Readable.from(answer.body));
  };

  // PROPFIND / : a client given only the host name (DAVx5, Thunderbird, cadaver) asks the root
  // for DAV:current-user-principal (RFC 5397 §3) and finds the book from there. Only PROPFIND:
  // GET / stays the web app's.
  await app.register(async (root) => {
    davScope(root);
    root.addHook('onRequest', signIn);
    root.route({ method: 'PROPFIND', url: '/', config: ROUTE_CONFIG, schema: OUTSIDE_OPENAPI, handler });
  });

  await app.register(
    async (dav) => {
      davScope(dav);
      dav.setNotFoundHandler((request, reply) => answerError(new DavError(405, `${request.method} is not supported here; use ${ALLOWED}`), request, reply));
      dav.addHook('onRequest', signIn);
      for (const url of ['', '/*']) dav.route({ method: METHODS, url, config: ROUTE_CONFIG, schema: OUTSIDE_OPENAPI, exposeHeadRoute: false, handler });
    },
    { prefix: DAV_PREFIX.slice(0, -1) },
  );
}
