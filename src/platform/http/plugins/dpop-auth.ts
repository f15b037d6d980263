import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DpopProofRefused } from '../../crypto/dpop.js';
import type { DpopVerifier, VerifiedProof } from '../../crypto/dpop.js';
import type { AuthContext } from '../../caller.js';
import { sha256Base64url } from '../../crypto/tokens.js';
import { AppError, refuse, TokenRefused } from '../../errors.js';
import type { AuthFailures } from '../../limits/auth-failures.js';
import type { Admission, Admitted, WindowToCount } from '../../limits/admission.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { AccountLimits } from './rate-limit.js';

export interface DpopAuthOptions {
  verifier: DpopVerifier;
  /** Spends the proof's id (RFC 9449 §11.1) and counts the account's windows at once (decision 350). */
  admission: Admission;
  /** The rate limit and quota an authenticated request counts in (rate-limit.ts). */
  accountLimits: AccountLimits;
  /**
   * Resolves an access token (by its hash, the proof's ath) to its caller, or refuses it
   * (sessions module): a refused token is a `TokenRefused`, whose reason says whether it expired.
   */
  authenticate(accessTokenHash: string, proofJkt: string): Promise<AuthContext>;
  /** Failed authentications per address and key (decision 003): counted on failure only, refused before any work. */
  failures: AuthFailures;
  publicOrigin: string;
  now: () => number;
  /** Refused proofs by reason, refused replays. */
  metrics: Metrics;
}

/**
 * Sender-constrained access (RFC 9449). Routes with `config.auth = 'session'` need an access
 * token (`Authorization: DPoP` per the RFC, or `Bearer` as the spec writes it, see
 * docs/decisions) and a proof by the key the token is bound to; `'proof'` routes need only a
 * proof, whose key the route then binds new tokens to.
 */
export const dpopAuthPlugin = fp(async (app: FastifyInstance, opts: DpopAuthOptions) => {
  const { verifier, admission, accountLimits, failures } = opts;

  // RFC 6750 §3.1: a request with no credentials gets the challenge without an error code.
  const unauthenticated = (detail: string) => refuse('unauthenticated', detail);
  const invalidRequest = (detail: string) => refuse('invalid_request', detail);
  const invalidProof = (detail: string) => refuse('invalid_dpop_proof', detail);

  /** RFC 9449 §4.3 step 1: exactly one DPoP header with one JWT. */
  function proofHeader(request: FastifyRequest): string {
    const raw = request.headers.dpop;
    if (raw === undefined || raw === '') throw new DpopProofRefused('missing', 'the DPoP header is missing');
    if (typeof raw !== 'string' || raw.includes(',')) throw new DpopProofRefused('multiple', 'send exactly one DPoP proof');
    return raw;
  }

  /** Synchronous: a refused proof throws (verifyNow), so the hook makes no promise for it. */
  function verifyDpopProof(request: FastifyRequest, accessTokenHash?: string): VerifiedProof {
    const query = request.url.indexOf('?');
    const path = query < 0 ? request.url : request.url.slice(0, query);
    try {
      return verifier.verifyNow({
        proof: proofHeader(request),
        method: request.method,
        url: opts.publicOrigin + path,
        accessTokenHash,
        now: opts.now(),
      });
    } catch (error) {
      if (error instanceof DpopProofRefused) opts.metrics.proofRefused(error.reason);
      throw error;
    }
  }

  /**
   * §11.1: the proof's id is spent last, so only otherwise valid proofs cost a write. The windows
   * the request counts in go in the same admission, one Redis round trip with several nodes
   * (decision 350); a replay is refused before any of them is counted.
   */
  async function refuseReplay(proof: VerifiedProof, windows: WindowToCount[], now: number): Promise<Admitted> {
    const admitted = await admission.admit({ proof: { jti: proof.jti, until: proof.replayUntil }, windows, now });
    if (admitted.replayed) {
      opts.metrics.replayRefused();
      throw invalidProof('this proof was used before');
    }
    return admitted;
  }

  function accessToken(request: FastifyRequest): string {
    // Node keeps only the first Authorization header; the raw list shows a second (DPoP and Bearer at once).
    const raw = request.raw.rawHeaders;
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).length === 13 && (raw[i] as string).toLowerCase() === 'authorization') count++;
    if (count > 1) throw invalidRequest('send one Authorization header');
    const header = request.headers.authorization;
    if (!header) throw unauthenticated('send Authorization: DPoP <access token> and a DPoP proof');
    const space = header.indexOf(' ');
    const scheme = space > 0 ? header.slice(0, space).toLowerCase() : '';
    const token = space > 0 ? header.slice(space + 1).trim() : '';
    if (scheme !== 'dpop' && scheme !== 'bearer') throw unauthenticated('use the DPoP authorization scheme');
    if (!token || token.includes(' ')) throw invalidRequest('the Authorization header is malformed');
    return token;
  }

  const refusedWhileDeleted = (auth: AuthContext, openWhileDeleted: boolean) => auth.account.deleted_at !== null && !openWhileDeleted;

  /**
   * PRODUCT §8: while an account is deleted (its grace period) its sessions reach only the
   * routes that say so (GET /me, undelete, export, step-up, logout); decided here, once, from
   * the account row the token lookup already read (ARCHITECTURE: lifecycle is checked once).
   */
  function refuseDeletedAccount(auth: AuthContext, openWhileDeleted: boolean): void {
    if (refusedWhileDeleted(auth, openWhileDeleted)) {
      throw refuse('account_deleted', 'this account is deleted; restore it (POST /account/undelete) to use it again');
    }
  }

  /**
   * A failed authentication: an unknown token, a token bound to another key, an invalid proof.
   * An expired token is not one: a client waking up sends it on every request it has queued
   * before it renews, on the same key and address, and counting those would block the key (and
   * everyone behind the address) with the fresh token too. The reason travels on the refusal.
   */
  function isFailedAuthentication(error: unknown): boolean {
    if (error instanceof TokenRefused) return error.reason !== 'expired';
    return error instanceof AppError && (error.code === 'invalid_token' || error.code === 'invalid_dpop_proof');
  }

  /**
   * A failed authentication counts against the address, and against the key only when the
   * proof's signature verified (else anyone could spend another person's key's budget with its
   * public half). Past a limit the failure answers 429 instead.
   */
  async function countFailure(request: FastifyRequest, error: unknown, jkt?: string): Promise<never> {
    if (isFailedAuthentication(error)) {
      const throttled = await failures.failed(request.ip, jkt).catch((countError: unknown) => {
        request.log.warn({ err: countError }, 'counting a failed authentication failed');
        return undefined;
      });
      if (throttled) throw throttled;
    }
    throw error;
  }

  app.addHook('preHandler', async (request, reply) => {
    const mode = request.routeOptions.config.auth;
    if (mode === 'session' || (mode === 'optional' && request.headers.authorization !== undefined)) {
      // Refused from memory before any work: no proof check, no token lookup.
      failures.refuseBlockedClient(request.ip);
      const tokenHash = sha256Base64url(accessToken(request));
      let proof: VerifiedProof;
      try {
        proof = verifyDpopProof(request, tokenHash);
      } catch (error) {
        return countFailure(request, error);
      }
      failures.refuseBlockedKey(proof.jkt);
      const openWhileDeleted = request.routeOptions.config.openWhileDeleted === true;
      let auth: AuthContext;
      let admitted: Admitted;
      let now: number;
      try {
        auth = await opts.authenticate(tokenHash, proof.jkt);
        now = opts.now();
        // A deleted account's refusal below comes before its limits: then nothing is counted.
        const windows = refusedWhileDeleted(auth, openWhileDeleted) ? [] : accountLimits.windows(request, auth.account.id, now);
        admitted = await refuseReplay(proof, windows, now);
      } catch (error) {
        return countFailure(request, error, proof.jkt);
      }
      request.auth = auth;
      request.dpopJkt = proof.jkt;
      refuseDeletedAccount(auth, openWhileDeleted);
      // Refusals in their order: replay, deleted account, then the minute limit, then the quota.
      accountLimits.settle(reply, admitted.hits, now);
    } else if (mode === 'proof') {
      const proof = verifyDpopProof(request);
      await refuseReplay(proof, [], opts.now());
      request.dpopJkt = proof.jkt;
    }
  });
}, { name: 'dpop-auth' });
