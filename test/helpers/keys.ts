import { createECDH, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';

export type SigningAlg = 'ES256' | 'ES384' | 'EdDSA';

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

const EC_CURVES = { ES256: { ecdh: 'prime256v1', crv: 'P-256', size: 32 }, ES384: { ecdh: 'secp384r1', crv: 'P-384', size: 48 } } as const;
/** PKCS #8 header of an Ed25519 private key (RFC 8410 §7); the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A fresh signing key pair, made without generateKeyPair, generateKeyPairSync or WebCrypto's
 * generateKey. On Node 20 those can deadlock the process: their key-generation job locks its
 * key's mutex when the garbage collector destroys it, and when that collection runs while the
 * same key is being exported to a JWK (the export holds that mutex and allocates), the thread
 * waits on itself forever. An ECDH object's keys and imported keys have no such job. Tests and
 * the benchmark make thousands of keys, so they all come from here.
 */
export function newKeyPair(alg: SigningAlg = 'ES256'): KeyPair {
  if (alg === 'EdDSA') {
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey);
    return { privateKey, publicKey, privateJwk: privateKey.export({ format: 'jwk' }), publicJwk: publicKey.export({ format: 'jwk' }) };
  }
  const { ecdh: curve, crv, size } = EC_CURVES[alg];
  const ecdh = createECDH(curve);
  const point = ecdh.generateKeys(); // uncompressed: 0x04 | x | y
  // RFC 7518 §6.2.2.1: d is the full size of the curve's order, leading zeros included.
  const d = Buffer.concat([Buffer.alloc(size), ecdh.getPrivateKey()]).subarray(-size);
  const publicJwk: JsonWebKey = { kty: 'EC', crv, x: point.subarray(1, 1 + size).toString('base64url'), y: point.subarray(1 + size).toString('base64url') };
  const privateJwk: JsonWebKey = { ...publicJwk, d: d.toString('base64url') };
  return { privateKey: createPrivateKey({ key: privateJwk, format: 'jwk' }), publicKey: createPublicKey({ key: publicJwk, format: 'jwk' }), privateJwk, publicJwk };
}
