import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { newKeyPair } from './keys.js';
import { sha256Base64url } from '../../src/platform/crypto/tokens.js';

export interface ProofOptions {
  accessToken?: string;
  /** Seconds since the epoch; defaults to now. */
  iat?: number;
  jti?: string;
  htu?: string;
  htm?: string;
  typ?: string;
  /** Extra or overriding claims. */
  claims?: Record<string, unknown>;
}

/** A device's DPoP key, making genuine RFC 9449 proofs the way a client does. */
export interface DpopKey {
  jwk: JWK;
  jkt: string;
  proof(method: string, url: string, options?: ProofOptions): Promise<string>;
}

/** A new device key; its private half is there for tests that make proofs by hand. */
export async function createDpopKey(alg: 'ES256' | 'ES384' | 'EdDSA' = 'ES256', now: () => number = Date.now): Promise<DpopKey & { privateKey: KeyObject }> {
  const { privateKey, publicJwk } = newKeyPair(alg);
  const jwk = publicJwk as JWK;
  const jkt = await calculateJwkThumbprint(jwk);
  return {
    jwk,
    jkt,
    privateKey,
    proof: (method, url, options = {}) => signProof(privateKey, alg, jwk, method, url, options, now),
  };
}

export async function signProof(
  privateKey: CryptoKey | KeyObject,
  alg: string,
  jwk: JWK,
  method: string,
  url: string,
  options: ProofOptions,
  now: () => number,
): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: options.htm ?? method,
    htu: options.htu ?? url,
    iat: options.iat ?? Math.floor(now() / 1000),
    jti: options.jti ?? randomUUID(),
    ...(options.accessToken ? { ath: sha256Base64url(options.accessToken) } : {}),
    ...options.claims,
  };
  return new SignJWT(claims).setProtectedHeader({ typ: options.typ ?? 'dpop+jwt', alg, jwk }).sign(privateKey);
}
