import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { SoftwareAuthenticator, type SoftwareAuthenticatorOptions } from './authenticator.js';

const origin = 'http://localhost:8080';
const rpID = 'localhost';

const regOptions = () => generateRegistrationOptions({
  rpName: 'VID', rpID, userName: 'alice', userID: new Uint8Array(randomBytes(32)), attestationType: 'none',
  authenticatorSelection: { residentKey: 'required', userVerification: 'required' }, supportedAlgorithmIDs: [-7],
});
const authOptions = () => generateAuthenticationOptions({ rpID, allowCredentials: [], userVerification: 'required' });

async function register(opts: SoftwareAuthenticatorOptions = {}, requireUserVerification = true) {
  const auth = new SoftwareAuthenticator(opts);
  const options = await regOptions();
  const response = await auth.createCredential(options, origin);
  const verification = await verifyRegistrationResponse({
    response, expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification,
  });
  assert.ok(verification.verified && verification.registrationInfo);
  return { auth, options, response, info: verification.registrationInfo };
}

async function authenticate(reg: Awaited<ReturnType<typeof register>>, counter = 0, requireUserVerification = true) {
  const options = await authOptions();
  const response = await reg.auth.getAssertion(options, origin);
  const verify = (r = response, expectedOrigin = origin) => verifyAuthenticationResponse({
    response: r, expectedChallenge: options.challenge, expectedOrigin, expectedRPID: rpID, requireUserVerification,
    credential: { id: reg.response.id, publicKey: reg.info.credential.publicKey, counter },
  });
  return { options, response, verify };
}

describe('SoftwareAuthenticator', () => {
  for (const attestation of ['none', 'packed'] as const) {
    it(`registers with ${attestation} attestation and authenticates`, async () => {
      const reg = await register({ attestation, backedUp: attestation === 'none' });
      assert.equal(reg.info.fmt, attestation);
      assert.equal(reg.info.credentialBackedUp, attestation === 'none');
      assert.equal(reg.info.credentialDeviceType, 'multiDevice');
      assert.equal(reg.info.userVerified, true);
      assert.equal(reg.info.credential.id, reg.response.id);
      assert.equal(reg.auth.credentials[0]?.userHandle, reg.options.user.id);

      const { response, verify } = await authenticate(reg);
      assert.equal(response.response.userHandle, reg.options.user.id);
      const result = await verify();
      assert.equal(result.verified, true);
      assert.equal(result.authenticationInfo.newCounter, 1);
    });
  }

  it('rejects a tampered signature and a wrong origin', async () => {
    const reg = await register();
    const { response, verify } = await authenticate(reg);
    const sig = Buffer.from(response.response.signature, 'base64url');
    sig[sig.length - 1]! ^= 0x01;
    const tampered = { ...response, response: { ...response.response, signature: sig.toString('base64url') } };
    const bad = await verify(tampered).then((r) => r.verified, () => false);
    assert.equal(bad, false);
    await assert.rejects(verify(response, 'http://evil.example'), /origin/i);
  });

  it('fails requireUserVerification when UV is not set', async () => {
    const auth = new SoftwareAuthenticator({ userVerification: false });
    const options = await regOptions();
    const response = await auth.createCredential(options, origin);
    await assert.rejects(verifyRegistrationResponse({
      response, expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: true,
    }), /user verification/i);
    const reg = await register({ userVerification: false }, false);
    await assert.rejects((await authenticate(reg)).verify(), /user verification/i);
  });

  it('increments the counter across successive assertions', async () => {
    const reg = await register();
    const first = await authenticate(reg, 0);
    assert.equal((await first.verify()).authenticationInfo.newCounter, 1);
    const second = await authenticate(reg, 1);
    assert.equal((await second.verify()).authenticationInfo.newCounter, 2);
    assert.equal(reg.auth.credentials[0]?.counter, 2);
  });

  it('supports keepCounter, forced counter and credentialId selection', async () => {
    const reg = await register();
    const options = await authOptions();
    const kept = await reg.auth.getAssertion(options, origin, { keepCounter: true });
    assert.equal(Buffer.from(kept.response.authenticatorData, 'base64url').readUInt32BE(33), 0);
    const second = await reg.auth.createCredential(await regOptions(), origin);
    const forced = await reg.auth.getAssertion(options, origin, { credentialId: reg.response.id, counter: 41 });
    assert.equal(forced.id, reg.response.id);
    assert.equal(Buffer.from(forced.response.authenticatorData, 'base64url').readUInt32BE(33), 41);
    assert.equal((await reg.auth.getAssertion(options, origin)).id, second.id); // newest by default
  });

  it('refuses to create when excludeCredentials names a held credential', async () => {
    const reg = await register();
    const options = await generateRegistrationOptions({
      rpName: 'VID', rpID, userName: 'alice', userID: new Uint8Array(randomBytes(32)), supportedAlgorithmIDs: [-7],
      excludeCredentials: [{ id: reg.response.id }],
    });
    await assert.rejects(reg.auth.createCredential(options, origin), { name: 'InvalidStateError' });
  });

  it('honours credentialIdLength', async () => {
    const auth = new SoftwareAuthenticator({ credentialIdLength: 1100 });
    const response = await auth.createCredential(await regOptions(), origin);
    assert.equal(Buffer.from(response.rawId, 'base64url').length, 1100);
  });
});
