import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { refuse as refusal } from '../errors.js';

/**
 * The relying-party side of WebAuthn Level 3, over @simplewebauthn/server with our policy:
 * discoverable credentials and user verification always required, a 300 s timeout instead of
 * the library's 60 s, the same algorithm list in options and verification. Pure: challenges are
 * stored and consumed by the caller.
 */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: string[];
}

// COSE: ES256, EdDSA, RS256 (Windows Hello still emits RS256).
export const SUPPORTED_ALGORITHMS = [-7, -8, -257];
export const CEREMONY_TIMEOUT_MS = 300_000;
const MAX_CREDENTIAL_ID_BYTES = 1023; // WebAuthn L3 §7.1 step 26: longer ids are refused

export interface NewCredential {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  backupEligible: boolean;
  backedUp: boolean;
  aaguid: string;
  /** WebAuthn L3 §5.1 authenticatorAttachment as the client reported it (platform, cross-platform), if it did. */
  attachment?: string;
}

export interface StoredCredential {
  credentialId: string;
  publicKey: string;
  counter: number;
  backupEligible: boolean;
}

const WHAT = { invalid_attestation: 'attestation', invalid_assertion: 'assertion' } as const;

function refuse(code: keyof typeof WHAT, detail: string, cause?: unknown): never {
  throw refusal(code, { detail, cause });
}

/**
 * Runs a @simplewebauthn verification and refuses with `code` when it throws or does not verify:
 * the library reports a failed check by throwing, a failed signature by `verified: false`.
 */
async function verifiedOrRefused<T extends { verified: boolean }>(code: keyof typeof WHAT, run: () => Promise<T>): Promise<T & { verified: true }> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : `${WHAT[code]} rejected`;
    // The library throws when the signature counter did not grow: a sign of a cloned authenticator.
    if (code === 'invalid_assertion' && /counter/i.test(message)) throw refusal('passkey_counter_regressed', { detail: 'the signature counter went backwards', cause: error });
    refuse(code, message, error);
  }
  if (!result.verified) refuse(code, `${WHAT[code]} did not verify`);
  return result as T & { verified: true };
}

export async function creationOptions(
  rp: RelyingParty,
  user: { handle: string; name: string; displayName: string },
  exclude: { id: string; transports?: string[] }[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName: user.name,
    userDisplayName: user.displayName,
    userID: Buffer.from(user.handle, 'base64url'),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: exclude,
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
}

export async function requestOptions(
  rp: RelyingParty,
  allow: { id: string; transports?: string[] }[] = [],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.rpId,
    allowCredentials: allow as never,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: 'required',
  });
}

export async function verifyCreation(rp: RelyingParty, response: RegistrationResponseJSON, challenge: string): Promise<NewCredential> {
  const result = await verifiedOrRefused('invalid_attestation', () =>
    verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    }),
  );
  const info = result.registrationInfo;
  const idBytes = Buffer.from(info.credential.id, 'base64url');
  if (idBytes.length === 0 || idBytes.length > MAX_CREDENTIAL_ID_BYTES) refuse('invalid_attestation', 'credential id length out of range');
  return {
    credentialId: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: (response.response.transports ?? []).slice(0, 8),
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
    aaguid: info.aaguid,
    attachment: response.authenticatorAttachment,
  };
}

export interface VerifiedAssertion {
  newCounter: number;
  backedUp: boolean;
}

export async function verifyAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  credential: StoredCredential,
): Promise<VerifiedAssertion> {
  const result = await verifiedOrRefused('invalid_assertion', () =>
    verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      credential: { id: credential.credentialId, publicKey: Buffer.from(credential.publicKey, 'base64url'), counter: credential.counter },
    }),
  );
  const info = result.authenticationInfo;
  // WebAuthn L3 §6.1.3: backup eligibility is fixed at creation; a change means another authenticator.
  if ((info.credentialDeviceType === 'multiDevice') !== credential.backupEligible) {
    refuse('invalid_assertion', 'backup eligibility differs from the registered credential');
  }
  return { newCounter: info.newCounter, backedUp: info.credentialBackedUp };
}
