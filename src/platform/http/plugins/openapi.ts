import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TSchema } from 'typebox';
import { problem } from '../schemas.js';

export const API_PREFIX = '/api/v1';

/** Statuses any route may answer, whatever it does (PRODUCT §0). */
const COMMON_RESPONSES: Record<string, ReturnType<typeof problem>> = {
  400: problem('Malformed request: validation, JSON, headers'),
  413: problem('Body too large'),
  415: problem('Body is not application/json'),
  429: problem('Rate limit or monthly quota reached; honour Retry-After'),
  500: problem('Unexpected failure on our side'),
  503: problem('Load shedding; honour Retry-After'),
};
const AUTH_RESPONSES = {
  401: problem('No, invalid or expired access token, or an invalid DPoP proof (see WWW-Authenticate)'),
};

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
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema || route.schema.hide) return;
    const responses = (route.schema.response ?? {}) as Record<string, unknown>;
    const auth = route.config?.auth;
    const defaults = auth === 'session' || auth === 'proof' ? { ...COMMON_RESPONSES, ...AUTH_RESPONSES } : COMMON_RESPONSES;
    for (const [status, schema] of Object.entries(defaults)) if (!(status in responses)) responses[status] = schema;
    route.schema.response = responses;
    const headers: Record<string, unknown> = {};
    if (route.config?.stepUp) {
      headers['vid-step-up'] = { type: 'string', description: 'base64url of the JSON WebAuthn assertion answering POST /auth/step-up/begin (5 minutes, single use)' };
      responses['403'] ??= problem('Step-up missing or invalid (step_up_required), or an ephemeral session (ephemeral_session)');
    }
    if (route.config?.idempotency) {
      headers['idempotency-key'] = { type: 'string', description: `${route.config.idempotency === 'required' ? 'Required' : 'Optional'}: a UUID (else 400 invalid_idempotency_key); a retry with the same key and body replays the first response for 24 h` };
      responses['409'] ??= problem('Idempotency-Key reused with another body, or its first request still in flight');
    }
    // Lifecycle refusals (dpop-auth.ts, sessions): PRODUCT §8 deletion; an operator's lock
    // (decision 090) refuses every session route and every route that opens a session.
    const lifecycle: string[] = [];
    if (auth === 'session' && !route.config?.openWhileDeleted) lifecycle.push('the account is deleted (account_deleted): restore it first');
    if (auth === 'session' || auth === 'proof') lifecycle.push('the account is locked by the operator (account_locked)');
    if (lifecycle.length) {
      const existing = responses['403'] as { description?: string } | undefined;
      const text = lifecycle.join('; or ');
      responses['403'] = problem(existing?.description ? `${existing.description}; or ${text}` : text[0]!.toUpperCase() + text.slice(1));
    }
    if (Object.keys(headers).length) {
      // Documented here; enforced by the step-up and idempotency plugins with their own codes.
      route.schema.headers = { type: 'object', properties: headers };
    }
    route.schema.security = auth === 'session' ? [{ DPoP: [] }] : auth === 'proof' ? [{ DPoPProof: [] }] : [];
    route.schema.operationId ??= operationId(String(route.method), route.url);
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
      servers: [{ url: API_PREFIX, description: 'This deployment ({base_url})' }],
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
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
}, { name: 'openapi' });
