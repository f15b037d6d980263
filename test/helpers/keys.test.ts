import assert from 'node:assert/strict';
import { createPublicKey, sign, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { newKeyPair } from './keys.js';
import type { SigningAlg } from './keys.js';

describe('test and benchmark key pairs (keys.ts)', () => {
  const cases: Array<[SigningAlg, string | null, number]> = [
    ['ES256', 'sha256', 32],
    ['ES384', 'sha384', 48],
    ['EdDSA', null, 32],
  ];
  for (const [alg, hash, size] of cases) {
    it(`${alg}: the private key signs what the public JWK verifies, and the JWKs have full-size members`, () => {
      const pair = newKeyPair(alg);
      const data = Buffer.from('signed by a fresh key');
      const signature = sign(hash, data, pair.privateKey);
      assert.ok(verify(hash, data, createPublicKey({ key: pair.publicJwk, format: 'jwk' }), signature));
      assert.equal(pair.privateJwk.d === undefined, false);
      assert.equal(pair.publicJwk.d, undefined);
      assert.equal(Buffer.from(pair.privateJwk.d!, 'base64url').length, size);
      assert.equal(Buffer.from(pair.publicJwk.x!, 'base64url').length, size);
      // The private JWK is the same key as the KeyObject (what the benchmark sends to its generator).
      assert.deepEqual(pair.privateKey.export({ format: 'jwk' }), pair.privateJwk);
      assert.notDeepEqual(newKeyPair(alg).publicJwk, pair.publicJwk);
    });
  }

  it('pads a private scalar with leading zero bytes to the curve size (RFC 7518 §6.2.2.1)', () => {
    // About one key in 256 has a leading zero byte; look until one shows up.
    for (let i = 0; i < 5000; i++) {
      const pair = newKeyPair('ES256');
      const d = Buffer.from(pair.privateJwk.d!, 'base64url');
      if (d[0] !== 0) continue;
      assert.equal(d.length, 32);
      assert.deepEqual(pair.privateKey.export({ format: 'jwk' }).d, pair.privateJwk.d);
      return;
    }
    assert.fail('no key with a leading zero byte in 5,000');
  });
});
