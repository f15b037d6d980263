// @vid/client/testing: the software passkey's registrations and assertions are verified by an
// independent WebAuthn implementation (@simplewebauthn/server) and its CBOR read back by another
// decoder (tiny-cbor), so neither can drift into something only this server accepts. The examples
// test runs it against the server itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCBOR } from '@levischuck/tiny-cbor';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { base64url, encodeCbor, softwareAuthenticator } from '../../client/src/testing/index.js';
import type { CreationOptions, RequestOptions } from '../../client/src/index.js';

const origin = 'https://id.example.test';
const challenge = (byte: number) => base64url(new Uint8Array(32).fill(byte));

const creation = (userId: string): CreationOptions =>
  ({
    challenge: challenge(1),
    rp: { id: 'id.example.test', name: 'VID' },
    user: { id: userId, name: 'ada', displayName: 'Ada' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  }) as CreationOptions;

describe('@vid/client/testing', () => {
  it('writes CBOR another decoder reads back: integers of every width, negatives, bytes, text, maps', () => {
    const value = new Map<number | string, never>([
      [1, 2 as never],
      [-1, -7 as never],
      ['big', 70000 as never],
      ['bytes', Uint8Array.of(0, 255) as never],
      ['text', 'ü' as never],
      ['nested', new Map([[24, 255]]) as never],
    ]);
    const decoded = decodeCBOR(encodeCbor(value)) as Map<unknown, unknown>;
    assert.equal(decoded.get(1), 2);
    assert.equal(decoded.get(-1), -7);
    assert.equal(decoded.get('big'), 70000);
    assert.deepEqual([...(decoded.get('bytes') as Uint8Array)], [0, 255]);
    assert.equal(decoded.get('text'), 'ü');
    assert.equal((decoded.get('nested') as Map<number, number>).get(24), 255);
    // §4.2.1: the shortest head; 23 fits in the initial byte, 24 needs one more.
    assert.deepEqual([...encodeCbor(23)], [0x17]);
    assert.deepEqual([...encodeCbor(24)], [0x18, 24]);
    assert.deepEqual([...encodeCbor(-25)], [0x38, 24]);
    assert.throws(() => encodeCbor(1.5), /only integers/);
  });

  it('registers and signs in as a WebAuthn library verifies it: ES256, DER signatures, a rising counter', async () => {
    const authenticator = softwareAuthenticator(origin);
    const userId = base64url(Uint8Array.of(7, 7, 7));
    const registration = await authenticator.createCredential(creation(userId));
    const registered = await verifyRegistrationResponse({
      response: registration as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge(1),
      expectedOrigin: origin,
      expectedRPID: 'id.example.test',
    });
    assert.ok(registered.verified);
    const credential = registered.registrationInfo!.credential;
    assert.equal(credential.id, registration.id);

    for (const [round, byte] of [[1, 2], [2, 3]] as const) {
      const request = { challenge: challenge(byte), rpId: 'id.example.test', allowCredentials: [{ id: registration.id, type: 'public-key' }] } as RequestOptions;
      const assertion = await authenticator.getAssertion(request);
      assert.equal(assertion.response.userHandle, userId);
      const verified = await verifyAuthenticationResponse({
        response: assertion as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge(byte),
        expectedOrigin: origin,
        expectedRPID: 'id.example.test',
        credential: { ...credential, counter: round - 1 },
      });
      assert.ok(verified.verified, `assertion ${round}`);
      assert.equal(verified.authenticationInfo.newCounter, round);
    }
    assert.deepEqual(authenticator.passkeys().map((passkey) => passkey.counter), [2]);
  });

  it('refuses when it holds no passkey the relying party allows, as navigator.credentials.get does', async () => {
    const authenticator = softwareAuthenticator(origin);
    await authenticator.createCredential(creation('dXNlcg'));
    const request = { challenge: challenge(4), rpId: 'id.example.test', allowCredentials: [{ id: 'c29tZW9uZS1lbHNl', type: 'public-key' }] } as RequestOptions;
    await assert.rejects(authenticator.getAssertion(request), /NotAllowedError/);
  });
});
