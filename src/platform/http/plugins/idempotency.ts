import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { idempotencyQueries } from '../../store/idempotency.js';
import { RecordedUnit, withRecordedUnit } from '../../store/recorded-unit.js';
import type { Store, Tx } from '../../store/store.js';

export interface IdempotencyOptions {
  store: Store;
  /** Stored responses can hold secrets shown once (a TOTP seed, tokens): they are sealed at rest. */
  box: SecretBox;
  now: () => number;
  /** How long a key and its response are kept (spec: 24 hours). */
  retentionMs?: number;
  /** How long a request may hold its key before another node may take it over. */
  leaseMs?: number;
}

// The spec writes Idempotency-Key: <uuid>.
const KEY_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REPLAYED_HEADERS = ['content-type', 'etag', 'location', 'cache-control', 'content-disposition'];
const TRANSIENT_STATUSES = new Set([401, 403, 429]);
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const IDEMPOTENT_BODY_PURPOSE = 'idempotent-response';

type Mode = 'required' | 'optional';

interface Claimed {
  scope: string;
  key: string;
  /** The request's recorded unit: its first transaction commits together with the answer. */
  unit: RecordedUnit<Tx>;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Claimed;
  }
}

/**
 * Whether a route takes Idempotency-Key: every unsafe method does (the spec: "Unsafe writes
 * accept the header"), unless it says `none`; `required` where PRODUCT §0 marks it [IK].
 */
export function idempotencyMode(route: Pick<RouteOptions, 'method' | 'config'>): Mode | undefined {
  const declared = route.config?.idempotency;
  if (declared === 'none') return undefined;
  if (declared) return declared;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.some((method) => UNSAFE_METHODS.has(String(method))) ? 'optional' : undefined;
}

/**
 * JSON with object members in code-point order (RFC 8785's ordering; numbers and strings as
 * JSON.stringify writes them): two bodies that mean the same have the same fingerprint.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header; spec Limits; decision 002). Keys
 * live in the database, scoped to the concrete URL and the principal, so a retry on another node
 * or after a restart replays the first response. The answer is written in the transaction of the
 * change it answers (store/recorded-unit.ts): a change is never committed without it. A reused
 * key with another body is 409 idempotency_key_reused (the spec's choice over the draft's 422).
 */
export const idempotencyPlugin = fp(async (app: FastifyInstance, opts: IdempotencyOptions) => {
  const retentionMs = opts.retentionMs ?? 24 * 3600_000;
  const leaseMs = opts.leaseMs ?? 60_000;
  const records = opts.store.use(idempotencyQueries);

  function principal(request: FastifyRequest): string {
    if (request.auth) return `acc:${request.auth.account.id}`;
    if (request.dpopJkt) return `jkt:${request.dpopJkt}`;
    return `ip:${request.ip}`;
  }

  /** The query members a route declares (its querystring schema), once per route. */
  const declaredQueries = new WeakMap<object, readonly string[]>();
  function declaredQuery(request: FastifyRequest): readonly string[] {
    const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    if (!schema) return [];
    let names = declaredQueries.get(schema);
    if (!names) declaredQueries.set(schema, (names = Object.keys(schema.properties ?? {})));
    return names;
  }

  /**
   * What a key is scoped to: the request as the route understood it, not the bytes of its URL
   * (RFC 3986 §6.2.2: `%66` and `f` name the same resource, and a query member the route does
   * not read changes nothing). The method, the route, its decoded path parameters and its
   * declared query members as parsed, then the principal.
   */
  function scopeOf(request: FastifyRequest): string {
    const query = request.query as Record<string, unknown> | undefined;
    const read: Record<string, unknown> = {};
    for (const name of declaredQuery(request)) if (query?.[name] !== undefined) read[name] = query[name];
    return `${request.method} ${request.routeOptions.url} ${canonicalJson(request.params ?? {})} ${canonicalJson(read)} ${principal(request)}`;
  }

  function fingerprint(request: FastifyRequest): string {
    // A body that is not JSON (a photo) is its bytes, with its media type.
    if (Buffer.isBuffer(request.body)) return createHash('sha256').update(`${request.headers['content-type'] ?? ''}\n`).update(request.body).digest('base64url');
    return createHash('sha256').update(canonicalJson(request.body ?? null)).digest('base64url');
  }

  function modeOf(request: FastifyRequest): Mode | undefined {
    const mode = request.routeOptions.config.idempotency;
    if (mode !== 'optional') return mode === 'required' ? mode : undefined;
    const member = request.routeOptions.config.idempotencyRequiredWith;
    const body = request.body as Record<string, unknown> | undefined;
    return member && body && typeof body === 'object' && body[member] !== undefined ? 'required' : 'optional';
  }

  async function replay(reply: FastifyReply, status: number, body: string, headers: string): Promise<FastifyReply> {
    const stored = JSON.parse(headers) as Record<string, string>;
    reply.headers(stored);
    reply.header('VID-Idempotent-Replay', 'true');
    return reply.code(status).send(body);
  }

  async function claimOrReplay(request: FastifyRequest, reply: FastifyReply, mode: Mode): Promise<FastifyReply | undefined> {
    const header = request.headers['idempotency-key'];
    if (header === undefined) {
      if (mode === 'optional') return;
      throw refuse('idempotency_key_required', 'this request creates something: send an Idempotency-Key header with a UUID');
    }
    if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
      throw refuse('invalid_idempotency_key', 'the Idempotency-Key must be one UUID');
    }
    // RFC 9562 §4: a UUID's hex digits are case-insensitive; one key however it is written.
    const key = header.toLowerCase();
    const now = opts.now();
    // The concrete resource, not the route's pattern: one key on /me/fields/f1 says nothing of f2.
    const scope = scopeOf(request);
    const print = fingerprint(request);
    const claim = await records.claim(
      { scope, idem_key: key, fingerprint: print, state: 'in_flight', status: null, body: null, headers: null, locked_until: now + leaseMs, expires_at: now + retentionMs },
      now,
    );
    if (claim.claimed) {
      request.idempotency = { scope, key, unit: new RecordedUnit<Tx>() };
      return;
    }
    const existing = claim.existing;
    if (existing.fingerprint !== print) {
      throw refuse('idempotency_key_reused', 'this key was used with a different request body');
    }
    if (existing.state !== 'done' || existing.status === null) {
      throw refuse('idempotency_request_in_progress', { detail: 'a request with this key is still being processed; retry shortly', retryAfterSeconds: 1 });
    }
    return replay(reply, existing.status, existing.body ? opts.box.open(existing.body, IDEMPOTENT_BODY_PURPOSE) : '', existing.headers ?? '{}');
  }

  function answerOf(reply: FastifyReply, payload: unknown): { status: number; body: string; headers: string } {
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    return {
      status: reply.statusCode,
      body: opts.box.seal(typeof payload === 'string' ? payload : '', IDEMPOTENT_BODY_PURPOSE),
      headers: JSON.stringify(headers),
    };
  }

  async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown, claimed: Claimed): Promise<unknown> {
    request.idempotency = undefined;
    // Our failure, a refusal about the request's credentials or timing rather than its content
    // (401, 403 step-up, 429), or any answer that asks to come back later (Retry-After, as a
    // race lost to a concurrent change does): the retry runs again rather than replays it.
    const replayable = reply.statusCode < 500 && !TRANSIENT_STATUSES.has(reply.statusCode) && reply.getHeader('retry-after') === undefined;
    const { unit } = claimed;
    const answer = replayable ? answerOf(reply, payload) : undefined;
    if (unit.handedOver) {
      // The change waits, uncommitted, for this answer: it commits with the answer recorded; a
      // refusal about credentials or timing (a reused refresh token's 401 after revoking the
      // session) commits it unrecorded, so a retry runs again; our own failure rolls it back.
      const commitUnrecorded = async () => undefined;
      unit.answer(answer ? (tx: Tx) => tx.use(idempotencyQueries).complete(claimed.scope, claimed.key, answer) : reply.statusCode < 500 ? commitUnrecorded : undefined);
      try {
        await unit.outcome;
      } catch (error) {
        await records.release(claimed.scope, claimed.key).catch(() => undefined);
        reply.removeHeader('etag');
        reply.removeHeader('location');
        throw error;
      }
    } else if (answer) {
      // Nothing was written in a transaction (a refusal, or a route whose change is one statement).
      await records.complete(claimed.scope, claimed.key, answer);
    }
    if (!answer) await records.release(claimed.scope, claimed.key);
    return payload;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    const mode = idempotencyMode(route);
    route.config = { ...route.config, idempotency: mode ?? 'none' };
    if (!mode) return;
    // The handler runs inside the request's recorded unit when the request holds a key.
    const handler = route.handler;
    route.handler = function recordedHandler(this: FastifyInstance, request, reply) {
      const claimed = request.idempotency;
      if (!claimed) return handler.call(this, request, reply);
      return withRecordedUnit(claimed.unit, () => handler.call(this, request, reply));
    };
  });

  // Most requests carry no key: for them these hooks call done() and make no promise. Otherwise
  // they return the promise of the work (Fastify waits for it; an early reply ends the chain).
  app.addHook('preHandler', (request, reply, done) => {
    const mode = modeOf(request);
    if (!mode) return done();
    return claimOrReplay(request, reply, mode);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claimed = request.idempotency;
    if (!claimed) return done(null, payload);
    return record(request, reply, payload, claimed);
  });
}, { name: 'idempotency' });
