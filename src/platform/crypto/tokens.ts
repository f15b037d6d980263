import { hash, randomBytes } from 'node:crypto';

/**
 * Opaque bearer values (access and refresh tokens, recovery keys' verifiers): 256 random bits,
 * prefixed so a leaked value is recognisable in secret scanners. Only their SHA-256 is stored.
 */
export function newOpaqueToken(kind: 'at' | 'rt'): string {
  return `vid_${kind}_${randomBytes(32).toString('base64url')}`;
}

/**
 * base64url(SHA-256(value)). For an access token this is also the proof's `ath` claim
 * (RFC 9449 §4.2), so one hash serves the token lookup and the ath check.
 */
export function sha256Base64url(value: string): string {
  // One-shot (node:crypto hash, Node 20.12+): no Hash object per call, on the hashes every
  // authenticated request makes (its token's, its proof's jti for the replay cache).
  return hash('sha256', value, 'base64url');
}

export function randomBase64url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
