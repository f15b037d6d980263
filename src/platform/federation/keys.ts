import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';

/** PKCS #8 header of an Ed25519 private key (RFC 8410 §7); the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A fresh Ed25519 key pair as JWKs (RFC 8037 §2) carrying `kid`: the private one for REGION_KEY,
 * the public one for the other regions' REGIONS. Made from 32 random bytes imported as PKCS #8
 * rather than with generateKeyPair, whose key-generation job can deadlock Node 20 when a key is
 * collected while exported (test/helpers/keys.ts tells the story).
 */
export function newRegionKey(kid: string): { privateJwk: JsonWebKey & { kid: string }; publicJwk: JsonWebKey & { kid: string } } {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' });
  const { kty, crv, x, d } = privateKey.export({ format: 'jwk' });
  const publicJwk = { kty, crv, x, kid };
  // The public half is derived again, not copied, so what peers list is what verifies.
  if (createPublicKey(privateKey).export({ format: 'jwk' }).x !== x) throw new Error('Ed25519 key export disagrees with itself');
  return { privateJwk: { kty, crv, d, x, kid }, publicJwk };
}
