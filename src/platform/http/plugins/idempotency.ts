import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { idempotencyQueries } from '../../store/idempotency.js';
import type { Store } from '../../store/store.js';

export interface IdempotencyOptions {
  store: Store;
  /** Stored responses can hold secrets shown once (a TOTP seed): they are sealed at rest. */
  box: SecretBox;
  now: () => number;
  /** How long a key and its response are kept (spec: 24 hours). */
  retentionMs?: number;
  /** How long a request may hold its key before another node may take it over. */
  leaseMs?: number;
}

// The spec writes Idempotency-Key: <uuid>.
const KEY_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REPLAYED_HEADERS = ['content-type', 'etag', 'location'];
const TRANSIENT_STATUSES = new Set([401, 403, 429]);
export const IDEMPOTENT_BODY_PURPOSE = 'idempotent-response';

interface Claimed {
  scope: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Claimed;
  }
}

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header; spec Limits). Keys live in the
 * database, scoped by endpoint and principal, so a retry on another node or after a restart
 * still replays the first response. A reused key with another body is 409
 * idempotency_key_reused (the spec's choice over the draft's 422, see docs/decisions).
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

  function fingerprint(request: FastifyRequest): string {
    return createHash('sha256').update(JSON.stringify(request.body ?? null)).digest('base64url');
  }

  async function replay(reply: FastifyReply, status: number, body: string, headers: string): Promise<FastifyReply> {
    const stored = JSON.parse(headers) as Record<string, string>;
    reply.headers(stored);
    reply.header('VID-Idempotent-Replay', 'true');
    return reply.code(status).send(body);
  }

  async function claimOrReplay(request: FastifyRequest, reply: FastifyReply, mode: 'required' | 'optional'): Promise<FastifyReply | undefined> {
    const key = request.headers['idempotency-key'];
    if (key === undefined) {
      if (mode === 'optional') return;
      throw refuse('idempotency_key_required', 'this request creates something: send an Idempotency-Key header with a UUID');
    }
    if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
      throw refuse('invalid_idempotency_key', 'the Idempotency-Key must be one UUID');
    }
    const now = opts.now();
    const scope = `${request.method} ${request.routeOptions.url} ${principal(request)}`;
    const print = fingerprint(request);
    const claim = await records.claim(
      { scope, idem_key: key, fingerprint: print, state: 'in_flight', status: null, body: null, headers: null, locked_until: now + leaseMs, expires_at: now + retentionMs },
      now,
    );
    if (claim.claimed) {
      request.idempotency = { scope, key };
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

  async function record(request: FastifyRequest, reply: FastifyReply, payload: unknown, claimed: Claimed): Promise<unknown> {
    request.idempotency = undefined;
    if (reply.statusCode >= 500 || TRANSIENT_STATUSES.has(reply.statusCode)) {
      // Our failure, or a refusal about the request's credentials or timing rather than its
      // content (401, 403 step-up, 429): let the retry run again rather than replay it.
      await records.release(claimed.scope, claimed.key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await records.complete(claimed.scope, claimed.key, {
      status: reply.statusCode,
      body: opts.box.seal(typeof payload === 'string' ? payload : '', IDEMPOTENT_BODY_PURPOSE),
      headers: JSON.stringify(headers),
    });
    return payload;
  }

  // Most requests carry no key: for them these hooks call done() and make no promise. Otherwise
  // they return the promise of the work (Fastify waits for it; an early reply ends the chain).
  app.addHook('preHandler', (request, reply, done) => {
    const mode = request.routeOptions.config.idempotency;
    if (!mode) return done();
    return claimOrReplay(request, reply, mode);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claimed = request.idempotency;
    if (!claimed) return done(null, payload);
    return record(request, reply, payload, claimed);
  });
}, { name: 'idempotency' });
