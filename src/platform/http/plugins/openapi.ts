import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TSchema } from 'typebox';
import { problem } from '../schemas.js';
import { RESPONSE_HEADERS, headersFor, routeFacts } from '../response-headers.js';
import type { RouteFacts } from '../response-headers.js';
import { idempotencyMode } from './idempotency.js';
import { refusalEntry } from '../../refusals.js';
import type { RouteRefusal } from '../../refusals.js';

export const API_PREFIX = '/api/v1';

/** Statuses any route may answer, whatever it does (PRODUCT §0). */
const COMMON_RESPONSES: Record<string, ReturnType<typeof problem>> = {
  400: problem('Malformed request: validation, JSON, headers'),
  413: problem('Body too large'),
  415: problem('Body is not application/json'),
  429: problem('Rate limit or monthly quota reached; honour Retry-After'),
  500: problem('Unexpected failure on our side'),
  503: problem('Overloaded, draining, or the database away (overloaded, shutting_down, database_unavailable); honour Retry-After'),
};
/** The refusals of the account's lifecycle, which join a 403 a route writes by hand. */
const LIFECYCLE: string[] = ['account_deleted', 'account_locked'];

/** A stable operationId from method and path: POST /api/v1/auth/sessions/:id -> postAuthSessionsById. */
export function operationId(method: string, url: string): string {
  const words = url
    .replace(API_PREFIX, '')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[-_.]/))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return method.toLowerCase() + words.join('');
}

/**
 * The route schemas are the contract: every route's params, body and responses generate the
 * OpenAPI 3.1 document served at /api/v1/openapi.json. Error responses every route can give
 * are added here, so no route can forget them.
 */
export interface OpenApiOptions {
  version: string;
  description: string;
  /** Every schema with an $id (the platform's and each module's): OpenAPI components. */
  schemas: readonly TSchema[];
  tags: ReadonlyArray<{ name: string; description: string }>;
}

export const openApiPlugin = fp(async (app: FastifyInstance, opts: OpenApiOptions) => {
  for (const schema of opts.schemas) app.addSchema(schema);
  const facts = new Map<string, RouteFacts>();
  const generated = new WeakSet<object>();
  const generatedProblem = (description: string) => {
    const response = problem(description);
    generated.add(response);
    return response;
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || route.schema.hide) return;
    const responses = (route.schema.response ?? {}) as Record<string, unknown>;
    const auth = route.config?.auth;
    // The refusals the route answers: those it names, then those its config implies.
    const refusals: RouteRefusal[] = [...(route.config?.refusals ?? [])];
    const headers: Record<string, unknown> = {};
    const requiredHeaders: string[] = [];
    if (route.config?.stepUp) {
      headers['vid-step-up'] = { type: 'string', description: 'base64url of the JSON WebAuthn assertion answering POST /auth/step-up/begin (5 minutes, single use)' };
      requiredHeaders.push('vid-step-up');
      refusals.push(['step_up_required', 'the VID-Step-Up assertion is missing or invalid'], 'ephemeral_session');
    }
    const idempotency = idempotencyMode(route);
    if (idempotency) {
      const requiredWith = route.config?.idempotencyRequiredWith;
      const when = idempotency === 'required' ? 'Required' : requiredWith ? `Required when the body has \`${requiredWith}\`, else optional` : 'Optional';
      headers['idempotency-key'] = {
        type: 'string',
        description: `${when}: a UUID (else 400 invalid_idempotency_key; missing where required: 400 idempotency_key_required). A retry with the same key on the same URL and a body of the same meaning replays the first answer for 24 h (VID-Idempotent-Replay: true); another body is 409 idempotency_key_reused.`,
      };
      if (idempotency === 'required') requiredHeaders.push('idempotency-key');
      refusals.push('invalid_idempotency_key');
      if (idempotency === 'required' || requiredWith) refusals.push('idempotency_key_required');
      refusals.push(['idempotency_key_reused', 'the Idempotency-Key was sent with another body'], ['idempotency_request_in_progress', 'the first request with this Idempotency-Key is still in flight']);
    }
    const ifMatch = route.config?.ifMatch;
    if (ifMatch) {
      headers['if-match'] = {
        type: 'string',
        description:
          (ifMatch === 'required' ? 'Required (else 428 precondition_required). ' : 'Needed once the resource exists (else 428 precondition_required); left out to create it. ') +
          'The ETag of your last read, as `"<version>"` or the bare `<version>`; `*` for any current version; or a list that names it (RFC 9110 §13.1.1). No match: 412 version_mismatch; not this grammar: 400 invalid_if_match.',
      };
      if (ifMatch === 'required') requiredHeaders.push('if-match');
      refusals.push(['version_mismatch', 'If-Match names no current version'], ['precondition_required', 'If-Match is missing'], 'invalid_if_match');
    }
    if (auth === 'optional') refusals.push(['invalid_token', 'an access token was sent and is invalid or expired (see WWW-Authenticate)'], ['invalid_dpop_proof', 'see WWW-Authenticate']);
    if (auth === 'session' || auth === 'proof') {
      refusals.push(['unauthenticated', 'no access token or DPoP proof'], ['invalid_token', 'an invalid or expired access token (see WWW-Authenticate)'], ['invalid_dpop_proof', 'see WWW-Authenticate']);
    }
    // Lifecycle refusals (dpop-auth.ts, sessions): PRODUCT §8 deletion; an operator's lock
    // (decision 090) refuses every session route and every route that opens a session.
    if (auth === 'session' && !route.config?.openWhileDeleted) refusals.push(['account_deleted', 'restore the account first']);
    if (auth === 'session' || auth === 'proof') refusals.push(['account_locked', 'the account is locked by the operator']);
    const lifecycle = documentRefusals(refusals.filter((refusal) => LIFECYCLE.includes(nameOf(refusal)))).get('403');
    const written = new Set<string>();
    for (const [status, text] of documentRefusals(refusals)) {
      const existing = responses[status] as { description?: string } | undefined;
      // A response written here before (the HEAD route Fastify adds beside a GET shares its
      // schema) is written again, not added to.
      if (!existing || generated.has(existing)) {
        responses[status] = generatedProblem(text);
        written.add(status);
      } else if (status === '403' && lifecycle) {
        // A response the route writes by hand stays as written; the lifecycle refusals join it.
        responses[status] = problem(existing.description ? `${existing.description}; or ${lifecycle}` : lifecycle);
      }
    }
    // Statuses any route may answer: their text joins what the route's refusals say.
    for (const [status, schema] of Object.entries(COMMON_RESPONSES)) {
      if (!responses[status]) responses[status] = schema;
      else if (written.has(status)) responses[status] = generatedProblem(`${(responses[status] as { description: string }).description}; or ${schema.description.charAt(0).toLowerCase()}${schema.description.slice(1)}`);
    }
    route.schema.response = responses;
    route.schema.operationId ??= operationId(String(route.method), route.url);
    // Fastify adds a HEAD route beside each GET with the same operationId: the GET speaks for both.
    if (String(route.method) !== 'HEAD') facts.set(route.schema.operationId, routeFacts(route, Boolean(idempotency), requiredHeaders));
    if (Object.keys(headers).length) {
      // Documented here; enforced by the step-up, idempotency and precondition code with their own
      // codes, so the validator does not refuse a missing one first.
      route.schema.headers = { type: 'object', properties: headers };
    }
    route.schema.security = auth === 'session' ? [{ DPoP: [] }] : auth === 'proof' ? [{ DPoPProof: [] }] : auth === 'optional' ? [{ DPoP: [] }, {}] : [];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'VID Identity Service API',
        version: opts.version,
        description: opts.description,
        license: { name: 'Proprietary', identifier: 'LicenseRef-VID' },
      },
      servers: [
        { url: API_PREFIX, description: 'This deployment ({base_url})' },
        {
          url: 'https://{region}.{domain}/api/v1',
          description: 'A regional deployment: the EU and the US each run their own, with their own accounts (docs/deploy.md, Regions)',
          variables: {
            region: { enum: ['eu', 'us'], default: 'eu', description: 'Where the account lives (the server\'s REGION); a client keeps the base URL it signed up on' },
            domain: { default: 'vid.example', description: 'The operator\'s domain' },
          },
        },
      ],
      components: {
        securitySchemes: {
          DPoP: {
            type: 'http',
            scheme: 'DPoP',
            description:
              'Authorization: DPoP <access_token> (Bearer is accepted too, as the spec writes it) plus a DPoP header ' +
              'holding a proof JWT (RFC 9449) signed by the device key the token is bound to, with htm, htu, iat, jti and ath.',
          },
          DPoPProof: {
            type: 'apiKey',
            in: 'header',
            name: 'DPoP',
            description: 'A DPoP proof JWT (RFC 9449) without ath; the tokens issued are bound to its key.',
          },
        },
      },
      tags: [...opts.tags],
    },
    transformObject: (documents) => declareResponseHeaders((documents as { openapiObject: Record<string, any> }).openapiObject, facts),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
}, { name: 'openapi' });

const nameOf = (refusal: RouteRefusal) => (typeof refusal === 'string' ? refusal : refusal[0]);

/**
 * The 4xx responses a route's refusals document, by status: each code with its title (and the
 * route's note on when it is answered), once, in the order named.
 */
export function documentRefusals(refusals: readonly RouteRefusal[]): Map<string, string> {
  const byStatus = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const refusal of refusals) {
    const name = nameOf(refusal);
    if (seen.has(name)) continue;
    seen.add(name);
    const { code, status, title } = refusalEntry(name);
    const note = typeof refusal === 'string' ? '' : `: ${refusal[1]}`;
    const status_ = String(status);
    if (!byStatus.has(status_)) byStatus.set(status_, []);
    byStatus.get(status_)!.push(`${code} (${title})${note}`);
  }
  return new Map([...byStatus].map(([status, lines]) => [status, lines.join('; ')]));
}

/**
 * Puts the response headers (response-headers.ts) into the document: once as components, and on
 * each operation's responses by what its route is.
 */
function declareResponseHeaders(document: Record<string, any>, facts: Map<string, RouteFacts>): Record<string, any> {
  document.components ??= {};
  document.components.headers = Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, header]) => [name, { ...header, required: false }]));
  for (const item of Object.values<Record<string, any>>(document.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      const route = facts.get(operation?.operationId);
      if (!route) continue;
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
        response.headers = Object.fromEntries(headersFor(route, status).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
      }
      // Header parameters that the plugins require (not the validator, which would refuse first
      // with a generic code): required in the contract all the same.
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'header' && route.requiredHeaders.includes(String(parameter.name).toLowerCase())) parameter.required = true;
      }
    }
  }
  return document;
}
