import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TSchema } from 'typebox';
import { problem } from '../schemas.js';
import { RESPONSE_HEADERS, headersFor, routeFacts } from '../response-headers.js';
import type { RouteFacts } from '../response-headers.js';
import { idempotencyMode } from './idempotency.js';
import { finishDocument } from '../openapi-finish.js';
import { REFUSALS, refusalEntry } from '../../refusals.js';
import { problemType } from './problem.js';
import type { RefusalCode, RouteRefusal } from '../../refusals.js';
import type { OperationNames } from '../../module.js';

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
/**
 * The codes behind COMMON_RESPONSES (the refusal catalogue's conventions and edge refusals): the
 * problem `code`s any route may answer at that status, beside those it declares.
 */
const COMMON_CODES: Record<string, string[]> = {
  400: ['validation_failed', 'bad_request', 'invalid_json', 'json_too_deep', 'invalid_content_length'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited', 'quota_exceeded'],
  500: ['internal_error'],
  503: ['overloaded', 'shutting_down', 'database_unavailable'],
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

/** `POST /api/v1/auth/sessions/:id` → `POST /auth/sessions/{id}`: how the document and operations.ts name it. */
export function operationKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url.replace(API_PREFIX, '').replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
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
  /** Each module's operationIds (its operations.ts); a route without one gets a path-derived id. */
  operations?: OperationNames;
}

export const openApiPlugin = fp(async (app: FastifyInstance, opts: OpenApiOptions) => {
  for (const schema of opts.schemas) app.addSchema(schema);
  const facts = new Map<string, RouteFacts>();
  /** Per operationId, the problem codes each error status answers (x-problem-codes). */
  const codes = new Map<string, Map<string, string[]>>();
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
    route.schema.operationId ??= opts.operations?.[operationKey(String(route.method), route.url)] ?? operationId(String(route.method), route.url);
    // Fastify adds a HEAD route beside each GET with the same operationId: the GET speaks for both.
    if (String(route.method) !== 'HEAD') {
      facts.set(route.schema.operationId, routeFacts(route, Boolean(idempotency), requiredHeaders));
      const byStatus = codesByStatus(refusals);
      for (const [status, common] of Object.entries(COMMON_CODES)) byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), ...common])]);
      codes.set(route.schema.operationId, byStatus);
    }
    if (Object.keys(headers).length) {
      // Documented here; enforced by the step-up, idempotency and precondition code with their own
      // codes, so the validator does not refuse a missing one first.
      route.schema.headers = { type: 'object', properties: headers };
    }
    // An access token always travels with a proof (RFC 9449 §7): both schemes in one requirement.
    route.schema.security = auth === 'session' ? [{ DPoP: [], DPoPProof: [] }] : auth === 'proof' ? [{ DPoPProof: [] }] : auth === 'optional' ? [{ DPoP: [], DPoPProof: [] }, {}] : [];
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
          // RFC 9449 §7.1 registers DPoP as an HTTP authentication scheme, which OpenAPI would write
          // as type http, scheme DPoP; but generators implement only the bearer and basic schemes of
          // type http and warn about or drop any other (@hey-api/openapi-ts: "unsupported security
          // scheme", once per operation). As two header API keys, required together, every
          // generator emits a hook per header that the application fills: the same two headers.
          DPoP: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description:
              'The access token as `Authorization: DPoP <access_token>` (RFC 9449 §7.1; `Bearer` is accepted too, as the spec writes it). ' +
              'Always sent with the DPoPProof scheme: the token is bound to the device key that signs the proof, and the proof carries ath, the hash of this token.',
          },
          DPoPProof: {
            type: 'apiKey',
            in: 'header',
            name: 'DPoP',
            description:
              'A DPoP proof JWT (RFC 9449 §4), new for every request and every retry: htm, htu (this URL without query, from the server\'s PUBLIC_ORIGIN), iat, a unique jti, ' +
              'and ath with an access token; signed ES256 by the device key (raw r||s). Alone on the routes that issue tokens (the tokens are bound to its key); with DPoP on the others.',
          },
        },
      },
      tags: [...opts.tags],
    },
    transformObject: (documents) => finishDocument(declareProblemCodes(declareResponseHeaders((documents as { openapiObject: Record<string, any> }).openapiObject, facts, codes), codes)),
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

/** The codes a route's refusals answer, by status, once each, in the order named. */
export function codesByStatus(refusals: readonly RouteRefusal[]): Map<string, string[]> {
  const byStatus = new Map<string, string[]>();
  for (const refusal of refusals) {
    const { code, status } = refusalEntry(nameOf(refusal));
    const list = byStatus.get(String(status)) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(String(status), list);
  }
  return byStatus;
}

/**
 * `x-problem-codes` on each operation, by error status: the problem codes each error response
 * may carry (the route's declared refusals and those any route may answer), machine-readable
 * beside the prose, for generators and the client's per-operation code types. On the operation
 * rather than on each response: the error responses are shared components referenced with `$ref`,
 * and a Reference Object takes no members beside `summary` and `description` (OpenAPI 3.1 §4.8.23).
 */
function declareProblemCodes(document: Record<string, any>, codes: Map<string, Map<string, string[]>>): Record<string, any> {
  for (const item of Object.values<Record<string, any>>(document.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      const byStatus = codes.get(operation?.operationId);
      if (!byStatus) continue;
      const declared: Record<string, string[]> = {};
      for (const status of Object.keys(operation.responses ?? {})) {
        const list = byStatus.get(status);
        if (list?.length) declared[status] = list;
      }
      if (Object.keys(declared).length) operation['x-problem-codes'] = declared;
    }
  }
  return document;
}

/** The name of an error status in a response component's name (RFC 9110 §15 reason phrases). */
const STATUS_WORDS: Record<string, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 410: 'Gone',
  412: 'PreconditionFailed', 413: 'ContentTooLarge', 415: 'UnsupportedMediaType', 422: 'UnprocessableContent',
  428: 'PreconditionRequired', 429: 'TooManyRequests', 500: 'InternalServerError', 503: 'ServiceUnavailable',
};

/**
 * A shared error response's name: the status, and what sets its header list apart: the monthly
 * quota (session routes), an idempotent replay (routes taking Idempotency-Key), the DPoP challenge
 * on a 400 (authenticated routes). `NotFoundWithQuotaAndReplay`.
 */
function sharedResponseName(status: string, headers: readonly string[]): string | undefined {
  const word = STATUS_WORDS[status];
  if (!word) return undefined;
  const parts = [headers.includes('Quota-Limit') && 'Quota', headers.includes('VID-Idempotent-Replay') && 'Replay', status === '400' && headers.includes('WWW-Authenticate') && 'Challenge'].filter(Boolean);
  return parts.length ? `${word}With${parts.join('And')}` : word;
}

/** Only a plain problem+json response (as `problem()` writes it) is shared; anything else stays inline. */
function isPlainProblem(response: Record<string, any>): boolean {
  const types = Object.keys(response.content ?? {});
  return types.length === 1 && types[0] === 'application/problem+json' && Object.keys(response.content['application/problem+json']).length === 1 && response.content['application/problem+json'].schema?.$ref === '#/components/schemas/Problem';
}

/** An example problem document of a code, as problem.ts writes one. */
function exampleProblem(code: string, status: number): Record<string, unknown> {
  const name = (Object.keys(REFUSALS) as RefusalCode[]).find((each) => refusalEntry(each).code === code && refusalEntry(each).status === status);
  const title = name ? refusalEntry(name).title : code;
  return { type: problemType(code), title, status, detail: `${title.charAt(0).toUpperCase()}${title.slice(1)} (the detail says what went wrong this time)`, code, request_id: '7d1e6f7c-3b0a-4c5e-9a51-2f4b8c1d9e03' };
}

/**
 * Puts the response headers (response-headers.ts) into the document: once as header components,
 * and per operation by what its route is. Success responses carry their header list; the error
 * responses (16 to 22 headers each, on every operation) are shared response components, one per
 * status and header list, referenced with the route's own description of its refusals.
 */
function declareResponseHeaders(document: Record<string, any>, facts: Map<string, RouteFacts>, codes: Map<string, Map<string, string[]>>): Record<string, any> {
  document.components ??= {};
  document.components.headers = Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, header]) => [name, { ...header, required: false }]));
  const shared: Record<string, Record<string, any>> = {};
  const statusOf = new Map<string, number>();
  /** Per shared response, how often each code is declared where it is used: the commonest is its example. */
  const codeCounts = new Map<string, Map<string, number>>();
  for (const item of Object.values<Record<string, any>>(document.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      const route = facts.get(operation?.operationId);
      if (!route) continue;
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
        const names = headersFor(route, status);
        const headers = Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
        const name = Number(status) >= 400 && isPlainProblem(response) ? sharedResponseName(status, names) : undefined;
        if (!name) {
          response.headers = headers;
          continue;
        }
        const held = shared[name];
        statusOf.set(name, Number(status));
        if (!held) shared[name] = { description: `${STATUS_WORDS[status]!.replace(/([a-z])([A-Z])/g, '$1 $2')}: a problem document (RFC 9457); the operation's x-problem-codes list the codes it may carry`, content: response.content, headers };
        else if (Object.keys(held.headers).join() !== names.join()) throw new Error(`openapi: two header lists share the response name ${name}`);
        const counts = codeCounts.get(name) ?? new Map<string, number>();
        for (const code of codes.get(operation.operationId)?.get(status) ?? []) counts.set(code, (counts.get(code) ?? 0) + 1);
        codeCounts.set(name, counts);
        // OpenAPI 3.1 §4.8.23: a Reference Object's description overrides the component's.
        operation.responses[status] = { $ref: `#/components/responses/${name}`, description: response.description };
      }
      // Header parameters that the plugins require (not the validator, which would refuse first
      // with a generic code): required in the contract all the same.
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'header' && route.requiredHeaders.includes(String(parameter.name).toLowerCase())) parameter.required = true;
      }
    }
  }
  for (const [name, response] of Object.entries(shared).sort(([a], [b]) => a.localeCompare(b))) {
    const commonest = [...(codeCounts.get(name) ?? [])].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
    if (commonest) response.content = { 'application/problem+json': { ...response.content['application/problem+json'], example: exampleProblem(commonest, statusOf.get(name)!) } };
    document.components.responses ??= {};
    document.components.responses[name] = response;
  }
  return document;
}
