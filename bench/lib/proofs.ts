// DPoP proofs (RFC 9449) made the way a client makes them, with node:crypto directly so the
// generator signs tens of thousands a second before a run: ES256, a fresh jti each, and the
// right htm, htu and ath.
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { DpopKey } from '../../test/helpers/dpop.js';
import { newKeyPair } from '../../test/helpers/keys.js';

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A new device key as a private JWK (what crosses the process boundary to the generator). */
export function newDeviceKey(): JsonWebKey {
  return newKeyPair('ES256').privateJwk;
}

export class ProofSigner {
  readonly jwk: { kty: string; crv: string; x: string; y: string };
  /** RFC 7638 thumbprint of the public key. */
  readonly jkt: string;
  private readonly key: KeyObject;
  private readonly header: string;

  constructor(privateJwk: JsonWebKey) {
    this.key = createPrivateKey({ key: privateJwk, format: 'jwk' });
    this.jwk = { kty: 'EC', crv: 'P-256', x: privateJwk.x as string, y: privateJwk.y as string };
    this.jkt = b64u(createHash('sha256').update(JSON.stringify({ crv: 'P-256', kty: 'EC', x: this.jwk.x, y: this.jwk.y })).digest());
    this.header = b64u(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: this.jwk }));
  }

  /** One proof; `ath` is the access token's hash when a token goes with it. */
  sign(htm: string, htu: string, ath?: string, iat = Math.floor(Date.now() / 1000)): string {
    const claims = ath ? { htm, htu, iat, jti: randomUUID(), ath } : { htm, htu, iat, jti: randomUUID() };
    const input = `${this.header}.${b64u(JSON.stringify(claims))}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: this.key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }

  /** The test helpers' key interface, for sign-up and login through TestClient. */
  asDpopKey(): DpopKey {
    return {
      jwk: this.jwk,
      jkt: this.jkt,
      proof: async (method, url, options = {}) => this.sign(method, url, options.accessToken ? accessTokenHash(options.accessToken) : undefined),
    };
  }
}
