import type { AuthContext } from '../caller.js';
import type { RefusalCode, RouteRefusal } from '../refusals.js';

/** What a route declares in `config`, read by the plugins. */
/** optional: a session when the request carries an access token (then checked as session routes do), else anonymous. */
export type AuthRequirement = 'session' | 'proof' | 'optional' | 'none';
/**
 * Who a request is counted against, per minute (PRODUCT §0): auth (unauthenticated sign-in
 * routes), public (other unauthenticated routes), web (the web app's pages and files) and probe
 * (health checks, in the node's memory) per client address; user per account; dav per
 * address-book password (the route counts it). Every answer is counted under one of them.
 */
export type RateLimitClass = 'auth' | 'user' | 'public' | 'web' | 'probe' | 'dav';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** session: DPoP-bound access token; proof: a DPoP proof only (sign-up, login, renew). */
    auth?: AuthRequirement;
    rateLimit?: RateLimitClass;
    /**
     * required: 400 without Idempotency-Key (PRODUCT §0 [IK]); optional: honoured when sent (the
     * default of every POST, PUT, PATCH and DELETE); none: the header is ignored (decision 002).
     */
    idempotency?: 'required' | 'optional' | 'none';
    /** If-Match: required (428 without), or optional (a PUT that may create); documented from here. */
    ifMatch?: 'required' | 'optional';
    /** With idempotency optional: a body member whose presence makes the key required. */
    idempotencyRequiredWith?: string;
    /** A long-lived stream (SSE, WebSocket): not a request "in flight" for load shedding. */
    stream?: boolean;
    /** Reachable while the account is deleted (PRODUCT §8: GET /me, undelete, export, logout). */
    openWhileDeleted?: boolean;
    /**
     * The refusals the route answers beyond those its other config implies (auth, step-up,
     * idempotency, If-Match): the OpenAPI plugin writes the route's 4xx responses from them.
     */
    refusals?: readonly RouteRefusal[];
    /**
     * A route that takes a body other than JSON names its own refusals for a body past its limit
     * and for a media type it does not take (a photo upload: photo_too_large, photo_not_image).
     */
    bodyRefusals?: { tooLarge: RefusalCode; mediaType: RefusalCode };
  }
  interface FastifyRequest {
    auth?: AuthContext;
    /** Thumbprint of the key that signed this request's DPoP proof. */
    dpopJkt?: string;
  }
}
