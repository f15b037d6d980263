import { createPublicKey, verify as verifySignature } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { AppError } from '../errors.js';
import { sha256Base64url } from './tokens.js';

/**
 * DPoP proof verification (RFC 9449 §4.3). Pure: the caller supplies the expected method, URL,
 * access-token hash and time, and does the replay check with the returned jti.
 *
 * The proof's embedded key is imported and thumbprinted once per distinct JOSE header and
 * cached: importing a JWK costs as much as the signature check itself.
 */
export interface DpopVerifierOptions {
  algorithms: string[];
  iatWindowSeconds: number;
  clockSkewSeconds: number;
  /** Distinct proof headers (device keys) kept imported. */
  cacheSize?: number;
}

export interface DpopCheck {
  proof: string;
  method: string;
  /** The request URI without query and fragment, on the configured public origin (§4.3 step 9). */
  url: string;
  /** base64url(SHA-256(access token)) when a token accompanies the proof (§4.3 step 10). */
  accessTokenHash?: string;
  now: number;
}

export interface VerifiedProof {
  /** RFC 7638 thumbprint of the proof key: what tokens are bound to. */
  jkt: string;
  jti: string;
  /** Until when the jti must be remembered to refuse a replay. */
  replayUntil: number;
}

interface CachedKey {
  key: KeyObject;
  jkt: string;
  hash: 'sha256' | 'sha384' | null;
  signatureLength: number;
}

const ALGORITHMS: Record<string, { kty: string; crv: string; hash: 'sha256' | 'sha384' | null; signatureLength: number }> = {
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256', signatureLength: 64 },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384', signatureLength: 96 },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', hash: null, signatureLength: 64 },
};
/**
 * Why a proof was refused, as a fixed list: the refused-proofs metric is labelled by it, and a
 * free-text detail would make a series per message. `missing` and `multiple` are the DPoP
 * header's (the auth plugin's checks, §4.3 step 1); the rest follow §4.3 steps 2-12.
 */
export const DPOP_REFUSAL_REASONS = ['missing', 'multiple', 'too_long', 'malformed', 'typ', 'alg', 'jwk', 'signature', 'jti', 'htm', 'htu', 'iat_missing', 'iat_in_future', 'iat_too_old', 'ath'] as const;
export type DpopRefusalReason = (typeof DPOP_REFUSAL_REASONS)[number];

/** 401 invalid_dpop_proof, carrying its reason for the metrics; the problem document shows only the detail. */
export class DpopProofRefused extends AppError {
  constructor(
    readonly reason: DpopRefusalReason,
    detail: string,
  ) {
    super('invalid_dpop_proof', { detail });
  }
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const MAX_PROOF_LENGTH = 4096;
const MAX_JTI_LENGTH = 256;

export function createDpopVerifier(options: DpopVerifierOptions) {
  const allowed = new Set(options.algorithms);
  const challenge = `DPoP algs="${options.algorithms.join(' ')}"`;
  const keys = new Map<string, CachedKey>();
  const cacheSize = options.cacheSize ?? 10_000;

  function refuse(reason: DpopRefusalReason, detail: string): never {
    throw new DpopProofRefused(reason, detail);
  }

  function decodeJson(segment: string, what: string): Record<string, unknown> {
    try {
      const value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // fall through to the refusal below
    }
    return refuse('malformed', `proof ${what} is not a JSON object`);
  }

  /**
   * RFC 7638: SHA-256 of the key's required members, in lexicographic order, as JSON (EC: crv,
   * kty, x, y; OKP: crv, kty, x), each a non-empty string. Computed here, at once: jose's
   * calculateJwkThumbprint hashes through WebCrypto, a promise and a job per new key, and every
   * login brings a new key.
   */
  function thumbprint(jwk: JWK): string {
    const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
    for (const value of Object.values(members)) if (typeof value !== 'string' || value === '') refuse('jwk', 'jwk is not a valid public key');
    return sha256Base64url(JSON.stringify(members));
  }

  /** §4.3 steps 4-7: typ, alg on the allow-list, a public JWK that matches the alg. */
  function importHeader(segment: string): CachedKey {
    const header = decodeJson(segment, 'header');
    if (header.typ !== 'dpop+jwt') refuse('typ', 'typ must be dpop+jwt');
    const alg = typeof header.alg === 'string' ? header.alg : '';
    const spec = ALGORITHMS[alg];
    if (!spec || !allowed.has(alg)) refuse('alg', `alg must be one of ${options.algorithms.join(', ')}`);
    const jwk = header.jwk as JWK | undefined;
    if (!jwk || typeof jwk !== 'object') refuse('jwk', 'jwk header is required');
    if (PRIVATE_JWK_MEMBERS.some((m) => m in jwk)) refuse('jwk', 'jwk must be a public key');
    if (jwk.kty !== spec.kty || jwk.crv !== spec.crv) refuse('jwk', `jwk does not match alg ${alg}`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk as never, format: 'jwk' });
    } catch {
      refuse('jwk', 'jwk is not a valid public key');
    }
    return { key, jkt: thumbprint(jwk), hash: spec.hash, signatureLength: spec.signatureLength };
  }

  /**
   * Keys seen once and not cached: a key is admitted to the cache on its second sighting. A
   * login brings a fresh device key that may never sign again (a benchmark's logins, a client
   * that discards its key); caching each of those filled the cache with one-shot keys, about
   * 2.6 KB apiece. A key that signs twice is a device's, and stays. Each entry is the header's
   * tail (it holds the key's coordinates): short, and a rare clash only admits a key early.
   */
  const seenOnce = new Set<string>();

  function keyFor(headerSegment: string): CachedKey {
    const cached = keys.get(headerSegment);
    if (cached) return cached;
    const imported = importHeader(headerSegment);
    const sighting = headerSegment.slice(-48);
    if (!seenOnce.delete(sighting)) {
      if (seenOnce.size >= cacheSize) seenOnce.delete(seenOnce.values().next().value as string);
      seenOnce.add(sighting);
      return imported;
    }
    if (keys.size >= cacheSize) keys.delete(keys.keys().next().value as string);
    keys.set(headerSegment, imported);
    return imported;
  }

  function sameUrl(htu: string, expected: string): boolean {
    if (htu === expected) return true;
    // §4.3 step 9: compare without query and fragment, after the WHATWG URL parser's normalisation
    // (scheme and host case, default port); a userinfo part never matches.
    try {
      const u = new URL(htu);
      if (u.username || u.password) return false;
      return u.origin + u.pathname === expected;
    } catch {
      return false;
    }
  }

  /** The whole check, at once: it waits for nothing (a new key is imported synchronously too). */
  function verifyNow(check: DpopCheck): VerifiedProof {
    const { proof } = check;
    if (proof.length > MAX_PROOF_LENGTH) refuse('too_long', 'proof is too long');
    const firstDot = proof.indexOf('.');
    const secondDot = proof.indexOf('.', firstDot + 1);
    if (firstDot <= 0 || secondDot <= firstDot + 1 || proof.indexOf('.', secondDot + 1) !== -1) refuse('malformed', 'proof is not a compact JWS');
    const headerSegment = proof.slice(0, firstDot);
    // The usual case, a key seen before, costs a map lookup.
    const key = keyFor(headerSegment);

    const signature = Buffer.from(proof.slice(secondDot + 1), 'base64url');
    if (signature.length !== key.signatureLength) refuse('signature', 'signature has the wrong length');
    const signingInput = Buffer.from(proof.slice(0, secondDot), 'ascii');
    const valid = verifySignature(key.hash, signingInput, { key: key.key, dsaEncoding: 'ieee-p1363' }, signature);
    if (!valid) refuse('signature', 'signature does not verify');

    const claims = decodeJson(proof.slice(firstDot + 1, secondDot), 'payload');
    const { jti, htm, htu, iat, ath } = claims;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) refuse('jti', 'jti is missing or too long');
    if (htm !== check.method) refuse('htm', 'htm does not match the request method');
    if (typeof htu !== 'string' || !sameUrl(htu, check.url)) refuse('htu', 'htu does not match the request URL');
    if (typeof iat !== 'number' || !Number.isFinite(iat)) refuse('iat_missing', 'iat is missing');
    const nowSeconds = check.now / 1000;
    // §11.1: a short acceptance window bounds how long a jti must be remembered.
    if (iat > nowSeconds + options.clockSkewSeconds) refuse('iat_in_future', 'iat is in the future');
    if (iat < nowSeconds - options.iatWindowSeconds - options.clockSkewSeconds) refuse('iat_too_old', 'iat is too old');
    if (check.accessTokenHash !== undefined) {
      if (ath !== check.accessTokenHash) refuse('ath', 'ath does not match the access token');
    }
    const replayUntil = (iat + options.iatWindowSeconds + 2 * options.clockSkewSeconds) * 1000;
    return { jkt: key.jkt, jti, replayUntil };
  }

  return {
    challenge,
    /** How many imported keys the cache holds (keys seen at least twice). */
    cachedKeys: () => keys.size,
    /** The check as a promise: a refused proof is a rejection. */
    async verify(check: DpopCheck): Promise<VerifiedProof> {
      return verifyNow(check);
    },
    /** The same check without a promise, for the hook every authenticated request runs: a refused proof throws. */
    verifyNow,
  };
}

export type DpopVerifier = ReturnType<typeof createDpopVerifier>;
