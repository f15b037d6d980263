import type { RouteOptions } from 'fastify';

/**
 * The response headers of the contract (PRODUCT §0), declared once as OpenAPI components and
 * attached to each operation's responses by what the route is (openapi.ts). The contract walk
 * (test/contract/walk.test.ts) fails on a header seen in a real answer that is not declared here.
 */
const string = { type: 'string' } as const;
const integer = { type: 'integer', minimum: 0 } as const;

export const RESPONSE_HEADERS: Record<string, { description: string; schema: object }> = {
  'VID-Request-Id': { description: 'This request\'s id (also `request_id` of a problem); echoed when the request sent a valid one.', schema: string },
  'VID-API-Version': { description: 'The semantic version of the v1 contract the server implements.', schema: string },
  'X-Content-Type-Options': { description: 'Always `nosniff`: the body is what Content-Type says.', schema: { type: 'string', const: 'nosniff' } },
  Deprecation: { description: 'On a route the operator marked deprecated (RFC 9745): `@<epoch seconds>` of the deprecation.', schema: string },
  Sunset: { description: 'On a deprecated route (RFC 8594): when it stops answering.', schema: string },
  Link: { description: 'On a deprecated route: where its deprecation and sunset are explained (rel="deprecation", rel="sunset").', schema: string },
  'RateLimit-Limit': { description: 'Requests allowed in the current window of this route class (draft-ietf-httpapi-ratelimit-headers).', schema: integer },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: integer },
  RateLimit: { description: 'The current draft\'s combined field: `"<policy>";r=<remaining>;t=<reset>`.', schema: string },
  'RateLimit-Policy': { description: 'The current draft\'s policy field: `"<policy>";q=<limit>;w=<window seconds>`.', schema: string },
  'Quota-Limit': { description: 'Requests allowed per month for this account.', schema: integer },
  'Quota-Remaining': { description: 'Requests left this month.', schema: integer },
  'Quota-Reset': { description: 'Seconds until the monthly quota resets.', schema: integer },
  'Retry-After': { description: 'Seconds to wait before trying again (RFC 9110 §10.2.3).', schema: integer },
  'WWW-Authenticate': { description: 'The DPoP challenge (RFC 9449 §7.1) with the error that refused the request.', schema: string },
  'VID-Idempotent-Replay': { description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string', const: 'true' } },
  ETag: { description: 'Strong entity tag of the representation: `"<version>"` for versioned resources; send it back as If-Match or If-None-Match.', schema: string },
  'Cache-Control': { description: 'How the answer may be cached (RFC 9111): on every answer to an authenticated request, refusals included, `no-store` unless a resource a client revalidates by its ETag says `private, no-cache`; `public, max-age=…` on public cards and the catalog.', schema: string },
  Location: { description: 'The URL of the resource created.', schema: string },
  'Content-Disposition': { description: 'A download\'s file name (RFC 6266).', schema: string },
  'X-Accel-Buffering': { description: 'Always `no` on the event stream: proxies must not buffer it.', schema: string },
};

/** What of a route decides its response headers. */
export interface RouteFacts {
  method: string;
  auth?: string;
  idempotent: boolean;
  stream: boolean;
  /** Its 200 answer is a file of another type than JSON (a vCard, a configuration profile): it may be named for download. */
  file: boolean;
  /** Request headers the route's plugins require (lower case), though the validator does not. */
  requiredHeaders: string[];
}

export function routeFacts(route: RouteOptions, idempotent: boolean, requiredHeaders: string[]): RouteFacts {
  const config = route.config ?? {};
  return {
    method: String(route.method),
    auth: config.auth,
    idempotent,
    stream: Boolean(config.stream),
    file: fileTypes(route).length > 0,
    requiredHeaders,
  };
}

/** The media types other than JSON a route's 200 answer declares. */
function fileTypes(route: RouteOptions): string[] {
  const ok = (route.schema?.response as Record<string, { content?: Record<string, unknown> }> | undefined)?.[200];
  return Object.keys(ok?.content ?? {}).filter((type) => !type.includes('json'));
}

/** The headers a response of this status of this route may carry. */
export function headersFor(facts: RouteFacts, status: string): string[] {
  const code = Number(status);
  const names = ['VID-Request-Id', 'VID-API-Version', 'X-Content-Type-Options', 'Deprecation', 'Sunset', 'Link'];
  // Every answer is counted under some policy (rate-limit plugin).
  names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit', 'RateLimit-Policy');
  if (facts.auth === 'session') names.push('Quota-Limit', 'Quota-Remaining', 'Quota-Reset');
  if (code === 409 || code === 429 || code === 503) names.push('Retry-After');
  if (code === 401 || (code === 400 && facts.auth && facts.auth !== 'none')) names.push('WWW-Authenticate');
  if (facts.idempotent && code < 500) names.push('VID-Idempotent-Replay');
  if (code === 200 || code === 201 || code === 304) names.push('ETag');
  // On every answer to an authenticated request (PRODUCT §0), and on public cacheable ones.
  names.push('Cache-Control');
  if (code === 201) names.push('Location');
  if (code === 200 && (facts.method === 'GET' || facts.file)) names.push('Content-Disposition');
  if (code === 200 && facts.stream) names.push('X-Accel-Buffering');
  return names;
}
