import assert from 'node:assert/strict';
import { randomUUID, sign as nodeSign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { CompactSign, SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';
import { AppError } from '../errors.js';
import { createDpopVerifier } from './dpop.js';
import { challengeFor } from '../http/plugins/problem.js';
import type { DpopCheck } from './dpop.js';
import { sha256Base64url } from './tokens.js';
import { newKeyPair } from '../../../test/helpers/keys.js';

// Pure unit tests of the RFC 9449 §4.3 proof checks: no server, no database.

type Alg = 'ES256' | 'ES384' | 'EdDSA';

const ALGS: Alg[] = ['ES256', 'ES384', 'EdDSA'];
const WINDOW = 60;
const SKEW = 5;
const URL_ME = 'http://localhost:8080/api/v1/me';
/** A whole second, so iat arithmetic is exact. */
const NOW = 1_750_000_000_000;
const NOW_S = NOW / 1000;
const TOKEN = 'vid_at_example-access-token';
const ATH = sha256Base64url(TOKEN);

const newVerifier = (algorithms: string[] = ALGS, cacheSize?: number) =>
  createDpopVerifier({ algorithms, iatWindowSeconds: WINDOW, clockSkewSeconds: SKEW, cacheSize });

interface Key {
  alg: Alg;
  privateKey: KeyObject;
  jwk: JWK;
}

async function newKey(alg: Alg = 'ES256'): Promise<Key> {
  const { privateKey, publicJwk } = newKeyPair(alg);
  return { alg, privateKey, jwk: publicJwk as JWK };
}

interface ProofParts {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /** Claims removed from the defaults. */
  omit?: string[];
}

function defaultClaims(extra: Record<string, unknown> = {}, omit: string[] = []): Record<string, unknown> {
  const claims: Record<string, unknown> = { htm: 'GET', htu: URL_ME, iat: NOW_S, jti: randomUUID(), ...extra };
  for (const name of omit) delete claims[name];
  return claims;
}

/** A proof signed by `key`, with header and claims overridable. */
function proofBy(key: Key, parts: ProofParts = {}): Promise<string> {
  return new SignJWT(defaultClaims(parts.claims, parts.omit))
    .setProtectedHeader({ typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...parts.header } as never)
    .sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function check(proof: string, overrides: Partial<DpopCheck> = {}): DpopCheck {
  return { proof, method: 'GET', url: URL_ME, now: NOW, ...overrides };
}

/** The verifier refuses with 401 invalid_dpop_proof, the DPoP challenge and, optionally, a detail. */
async function assertRefused(promise: Promise<unknown>, detail?: RegExp, algs = 'ES256 ES384 EdDSA'): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_dpop_proof');
    // The problem plugin turns the refusal into the header; the verifier only names the error.
    const challenge = challengeFor(error, `DPoP algs="${algs}"`) ?? '';
    assert.ok(
      challenge.startsWith(`DPoP algs="${algs}", error="invalid_dpop_proof", error_description="`),
      `WWW-Authenticate was ${challenge}`,
    );
    if (detail) assert.match(error.detail, detail);
    return true;
  });
}

describe('createDpopVerifier: valid proofs', () => {
  it('publishes the challenge with the allowed algorithms', () => {
    assert.equal(newVerifier().challenge, 'DPoP algs="ES256 ES384 EdDSA"');
    assert.equal(newVerifier(['ES256']).challenge, 'DPoP algs="ES256"');
  });

  for (const alg of ALGS) {
    it(`accepts a ${alg} proof: jkt is jose's RFC 7638 thumbprint, jti is returned`, async () => {
      const key = await newKey(alg);
      const jti = randomUUID();
      const proof = await proofBy(key, { claims: { jti } });
      const verified = await newVerifier().verify(check(proof));
      assert.equal(verified.jkt, await calculateJwkThumbprint(key.jwk, 'sha256'));
      assert.equal(verified.jti, jti);
    });
  }

  it('replayUntil is (iat + window + 2 * skew) * 1000', async () => {
    const key = await newKey();
    for (const iat of [NOW_S, NOW_S - 30, NOW_S + 3]) {
      const verified = await newVerifier().verify(check(await proofBy(key, { claims: { iat } })));
      assert.equal(verified.replayUntil, (iat + WINDOW + 2 * SKEW) * 1000);
    }
  });

  it('the replay horizon outlives the acceptance window of the same proof', async () => {
    // The last instant the proof is still accepted must be before the jti may be forgotten.
    const key = await newKey();
    const proof = await proofBy(key);
    const verifier = newVerifier();
    const lastAccepted = NOW + (WINDOW + SKEW) * 1000;
    const verified = await verifier.verify(check(proof, { now: lastAccepted }));
    assert.ok(verified.replayUntil > lastAccepted);
  });

  it('accepts a proof with ath when the token matches, and ignores ath when no token is sent', async () => {
    const key = await newKey();
    await newVerifier().verify(check(await proofBy(key, { claims: { ath: ATH } }), { accessTokenHash: ATH }));
    await newVerifier().verify(check(await proofBy(key, { claims: { ath: 'unrelated' } })));
  });

  it('compares htu without query and fragment (§4.3 step 9)', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    for (const htu of [`${URL_ME}?a=1&b=2`, `${URL_ME}#fragment`, `${URL_ME}?x=y#z`, `${URL_ME}?`]) {
      await verifier.verify(check(await proofBy(key, { claims: { htu } })));
    }
  });

  it('normalises scheme and host case and the default port before comparing htu (RFC 3986 §6.2.2, §6.2.3)', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    await verifier.verify(check(await proofBy(key, { claims: { htu: 'HTTP://LOCALHOST:8080/api/v1/me' } })));
    const url = 'https://id.example.com/api/v1/me';
    await verifier.verify(check(await proofBy(key, { claims: { htu: 'https://id.example.com:443/api/v1/me' } }), { url }));
    await verifier.verify(check(await proofBy(key, { claims: { htu: 'https://ID.Example.com/api/v1/me' } }), { url }));
  });

  it('accepts iat at both edges of the window (window + skew in the past, skew in the future)', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    await verifier.verify(check(await proofBy(key, { claims: { iat: NOW_S - WINDOW - SKEW } })));
    await verifier.verify(check(await proofBy(key, { claims: { iat: NOW_S + SKEW } })));
  });

  it('accepts a jti of the maximum length (256)', async () => {
    const key = await newKey();
    await newVerifier().verify(check(await proofBy(key, { claims: { jti: 'j'.repeat(256) } })));
  });
});

describe('createDpopVerifier: refusals (401 invalid_dpop_proof)', () => {
  it('refuses garbage that is not a compact JWS', async () => {
    const verifier = newVerifier();
    const key = await newKey();
    const valid = await proofBy(key);
    const [h, p, s] = valid.split('.') as [string, string, string];
    for (const garbage of ['', 'garbage', 'a.b', 'a.b.c.d', '..', '.p.s', 'h..s', `${h}.${p}.${s}.${s}`, `${h}.${p}`, 'x'.repeat(5000)]) {
      await assertRefused(verifier.verify(check(garbage)));
    }
  });

  it('refuses a proof longer than 4096 characters', async () => {
    const key = await newKey();
    const proof = await proofBy(key, { claims: { padding: 'p'.repeat(5000) } });
    await assertRefused(newVerifier().verify(check(proof)), /too long/);
  });

  it('refuses a header or payload that is not a JSON object', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    await assertRefused(verifier.verify(check(`${b64('not json')}.${b64({})}.${b64('sig')}`)), /header/);
    await assertRefused(verifier.verify(check(`${b64([1, 2])}.${b64({})}.${b64('sig')}`)), /header/);
    for (const payload of ['[1]', 'null', '"s"', '{bad']) {
      const proof = await new CompactSign(new TextEncoder().encode(payload))
        .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk } as never)
        .sign(key.privateKey);
      await assertRefused(verifier.verify(check(proof)), /payload/);
    }
  });

  it('refuses a wrong or missing typ', async () => {
    const key = await newKey();
    for (const typ of ['JWT', 'DPOP+JWT', 'dpop', undefined]) {
      await assertRefused(newVerifier().verify(check(await proofBy(key, { header: { typ } }))), /typ/);
    }
  });

  it('refuses alg none (an unsigned proof)', async () => {
    const key = await newKey();
    const header = b64({ typ: 'dpop+jwt', alg: 'none', jwk: key.jwk });
    const payload = b64(defaultClaims());
    await assertRefused(newVerifier().verify(check(`${header}.${payload}.`)));
    await assertRefused(newVerifier().verify(check(`${header}.${payload}.${b64('x'.repeat(64))}`)), /alg/);
  });

  it('refuses alg HS256 (a MAC keyed with the public key)', async () => {
    const key = await newKey();
    const proof = await new SignJWT(defaultClaims())
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.jwk } as never)
      .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
    await assertRefused(newVerifier().verify(check(proof)), /alg/);
  });

  it('refuses algorithms off the allow-list, and odd alg values', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const rsaProof = await new SignJWT(defaultClaims())
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'RS256', jwk: await exportJWK(publicKey) } as never)
      .sign(privateKey);
    await assertRefused(newVerifier().verify(check(rsaProof)), /alg/);
    // EdDSA is supported, but a deployment that allows only ES256 refuses it.
    const ed = await newKey('EdDSA');
    await assertRefused(newVerifier(['ES256']).verify(check(await proofBy(ed))), /alg must be one of ES256$/, 'ES256');
    const es = await newKey();
    for (const alg of ['constructor', '__proto__', 'toString', 'es256', 42]) {
      const forged = `${b64({ typ: 'dpop+jwt', alg, jwk: es.jwk })}.${b64(defaultClaims())}.${b64('x'.repeat(64))}`;
      await assertRefused(newVerifier().verify(check(forged)), /alg/);
    }
  });

  it('refuses a missing jwk', async () => {
    const key = await newKey();
    await assertRefused(newVerifier().verify(check(await proofBy(key, { header: { jwk: undefined } }))), /jwk/);
  });

  it('refuses a jwk that contains the private key (d)', async () => {
    for (const alg of ALGS) {
      const key = await newKey(alg);
      const privateJwk = await exportJWK(key.privateKey);
      assert.ok(privateJwk.d);
      await assertRefused(newVerifier().verify(check(await proofBy(key, { header: { jwk: privateJwk } }))), /public/);
    }
  });

  it('refuses a jwk whose key type or curve does not match alg', async () => {
    const p256 = await newKey('ES256');
    const p384 = await newKey('ES384');
    const ed = await newKey('EdDSA');
    // Signed for alg by the right key, but the header claims a key of another curve or type.
    await assertRefused(newVerifier().verify(check(await proofBy(p384, { header: { jwk: p256.jwk } }))), /does not match alg/);
    await assertRefused(newVerifier().verify(check(await proofBy(p256, { header: { jwk: p384.jwk } }))), /does not match alg/);
    await assertRefused(newVerifier().verify(check(await proofBy(p256, { header: { jwk: ed.jwk } }))), /does not match alg/);
    await assertRefused(newVerifier().verify(check(await proofBy(ed, { header: { jwk: p256.jwk } }))), /does not match alg/);
    await assertRefused(newVerifier().verify(check(await proofBy(ed, { header: { jwk: { ...ed.jwk, crv: 'Ed448' } } }))), /does not match alg/);
  });

  it('refuses a jwk that is not a valid public key', async () => {
    const key = await newKey();
    const broken = { ...key.jwk, x: 'AAAA' };
    await assertRefused(newVerifier().verify(check(await proofBy(key, { header: { jwk: broken } }))), /valid public key/);
  });

  for (const alg of ALGS) {
    it(`refuses a ${alg} signature that does not verify`, async () => {
      const key = await newKey(alg);
      const other = await newKey(alg);
      // Signed by another key of the same kind than the one in the header.
      await assertRefused(newVerifier().verify(check(await proofBy(other, { header: { jwk: key.jwk } }))), /signature/);
      // A flipped bit in a genuine signature.
      const [h, p, s] = (await proofBy(key)).split('.') as [string, string, string];
      const signature = Buffer.from(s, 'base64url');
      signature[5]! ^= 0x01;
      await assertRefused(newVerifier().verify(check(`${h}.${p}.${signature.toString('base64url')}`)), /signature does not verify/);
      // A signature of the wrong length (DER instead of IEEE P1363, or truncated).
      await assertRefused(newVerifier().verify(check(`${h}.${p}.${signature.subarray(1).toString('base64url')}`)), /signature/);
    });
  }

  it('refuses a DER-encoded ECDSA signature', async () => {
    const { privateKey, publicJwk } = newKeyPair('ES256');
    const jwk = publicJwk as JWK;
    const signingInput = `${b64({ typ: 'dpop+jwt', alg: 'ES256', jwk })}.${b64(defaultClaims())}`;
    const der = nodeSign('sha256', Buffer.from(signingInput), privateKey);
    await assertRefused(newVerifier().verify(check(`${signingInput}.${der.toString('base64url')}`)), /signature/);
    // The same signature in P1363 form is accepted: the proof above is refused for its encoding only.
    const p1363 = nodeSign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    await newVerifier().verify(check(`${signingInput}.${p1363.toString('base64url')}`));
  });

  it('refuses a missing, empty, non-string or over-long jti', async () => {
    const key = await newKey();
    await assertRefused(newVerifier().verify(check(await proofBy(key, { omit: ['jti'] }))), /jti/);
    for (const jti of ['', 42, 'j'.repeat(257)]) {
      await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { jti } }))), /jti/);
    }
  });

  it('refuses a proof for another method (htm)', async () => {
    const key = await newKey();
    for (const htm of ['POST', 'get', undefined]) {
      await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { htm } }))), /htm/);
    }
    await assertRefused(newVerifier().verify(check(await proofBy(key), { method: 'DELETE' })), /htm/);
  });

  it('refuses a proof for another URL (htu): path, origin, scheme, port, the listening address', async () => {
    const key = await newKey();
    for (const htu of [
      'http://localhost:8080/api/v1/me/',
      'http://localhost:8080/api/v1/auth/sessions',
      'http://localhost:8080/api/v1/me/../sessions',
      'https://localhost:8080/api/v1/me',
      'http://localhost:8081/api/v1/me',
      'http://127.0.0.1:34567/api/v1/me',
      'http://evil.example/api/v1/me?http://localhost:8080/api/v1/me',
      '/api/v1/me',
      'not a url',
      42,
      undefined,
    ]) {
      await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { htu } }))), /htu/);
    }
  });

  it('refuses an iat too old, in the future, or not a number', async () => {
    const key = await newKey();
    await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { iat: NOW_S - WINDOW - SKEW - 1 } }))), /too old/);
    await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { iat: NOW_S + SKEW + 1 } }))), /future/);
    await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { iat: NOW_S - 3600 } }))), /too old/);
    for (const iat of [String(NOW_S), null]) {
      await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { iat } }))), /iat/);
    }
    await assertRefused(newVerifier().verify(check(await proofBy(key, { omit: ['iat'] }))), /iat/);
    // The same genuine proof, accepted now, is refused once the clock has moved past the window.
    const proof = await proofBy(key);
    await newVerifier().verify(check(proof));
    await assertRefused(newVerifier().verify(check(proof, { now: NOW + (WINDOW + SKEW + 1) * 1000 })), /too old/);
  });

  it('refuses a missing or wrong ath when an access token is sent', async () => {
    const key = await newKey();
    await assertRefused(newVerifier().verify(check(await proofBy(key), { accessTokenHash: ATH })), /ath/);
    await assertRefused(
      newVerifier().verify(check(await proofBy(key, { claims: { ath: sha256Base64url('another token') } }), { accessTokenHash: ATH })),
      /ath/,
    );
    // The hash of the token, not the token itself.
    await assertRefused(newVerifier().verify(check(await proofBy(key, { claims: { ath: TOKEN } }), { accessTokenHash: ATH })), /ath/);
  });
});

describe('createDpopVerifier: the key cache', () => {
  it('checks the signature even when the header is cached: a tampered payload is refused', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    const genuine = await proofBy(key);
    await verifier.verify(check(genuine));
    const [h, , s] = genuine.split('.') as [string, string, string];
    // The cached header with another payload (another jti, so a replay check would not catch it).
    const tampered = `${h}.${b64(defaultClaims())}.${s}`;
    await assertRefused(verifier.verify(check(tampered)), /signature does not verify/);
    // With an unsigned payload claiming another URL too.
    const retargeted = `${h}.${b64(defaultClaims({ htu: 'http://localhost:8080/api/v1/auth/logout', htm: 'POST' }))}.${s}`;
    await assertRefused(verifier.verify(check(retargeted, { method: 'POST', url: 'http://localhost:8080/api/v1/auth/logout' })), /signature/);
    // Another key cannot reuse the cached header either.
    const other = await newKey();
    await assertRefused(verifier.verify(check(await proofBy(other, { header: { jwk: key.jwk } }))), /signature does not verify/);
  });

  it('serves many proofs of one key from the cache with the right jkt', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    const jkt = await calculateJwkThumbprint(key.jwk, 'sha256');
    for (let i = 0; i < 5; i++) {
      const verified = await verifier.verify(check(await proofBy(key)));
      assert.equal(verified.jkt, jkt);
    }
  });

  it('keeps working and keeps keys apart when the cache evicts', async () => {
    const verifier = newVerifier(ALGS, 1);
    const a = await newKey();
    const b = await newKey('EdDSA');
    const jktA = await calculateJwkThumbprint(a.jwk, 'sha256');
    const jktB = await calculateJwkThumbprint(b.jwk, 'sha256');
    for (let round = 0; round < 3; round++) {
      assert.equal((await verifier.verify(check(await proofBy(a)))).jkt, jktA);
      assert.equal((await verifier.verify(check(await proofBy(b)))).jkt, jktB);
    }
    const [h, , s] = (await proofBy(a)).split('.') as [string, string, string];
    await assertRefused(verifier.verify(check(`${h}.${b64(defaultClaims())}.${s}`)), /signature/);
  });

  it('admits a key to the cache on its second sighting: one-shot keys (logins) do not fill it', async () => {
    const verifier = newVerifier();
    for (let i = 0; i < 20; i++) await verifier.verify(check(await proofBy(await newKey())));
    assert.equal(verifier.cachedKeys(), 0, 'keys that signed once are not kept');
    const device = await newKey();
    const jkt = await calculateJwkThumbprint(device.jwk, 'sha256');
    for (let i = 0; i < 3; i++) assert.equal((await verifier.verify(check(await proofBy(device)))).jkt, jkt);
    assert.equal(verifier.cachedKeys(), 1, 'a key that signs again is a device\'s, and is kept');
  });

  it('does not cache a refused header', async () => {
    const key = await newKey();
    const verifier = newVerifier();
    const privateJwk = await exportJWK(key.privateKey);
    const proof = await proofBy(key, { header: { jwk: privateJwk } });
    await assertRefused(verifier.verify(check(proof)), /public/);
    await assertRefused(verifier.verify(check(proof)), /public/);
  });
});
