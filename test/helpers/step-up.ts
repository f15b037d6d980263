// Helpers for the security suites (step-up, passkey management, TOTP, recovery): a step-up
// assertion for the VID-Step-Up header, adding a passkey, sign-up and login with request
// headers, TOTP codes computed from the clock, and the recovery key download.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { SoftwareAuthenticator } from './authenticator.js';
import type { GetAssertionOptions } from './authenticator.js';
import type { CallResult, Device, TestClient } from './client.js';
import type { DpopKey } from './dpop.js';

export const STEP_UP_HEADER = 'vid-step-up';
export const STEP_UP_BEGIN = '/api/v1/auth/step-up/begin';

/** The VID-Step-Up header value: base64url of the JSON assertion. */
export function encodeStepUp(assertion: AuthenticationResponseJSON | unknown): string {
  return Buffer.from(JSON.stringify(assertion)).toString('base64url');
}

function fail(what: string, res: CallResult): never {
  throw new Error(`${what} ${res.status}: ${JSON.stringify(res.body)}`);
}

/** POST /auth/step-up/begin as the device; throws unless 200. */
export async function beginStepUp(client: TestClient, device: Device): Promise<{ ceremony_id: string; options: any }> {
  const begin = await client.as(device, 'POST', STEP_UP_BEGIN);
  if (begin.status !== 200) fail('step-up/begin', begin);
  return begin.body;
}

/**
 * A fresh step-up for the device's session: begin, sign the challenge (with the device's
 * authenticator unless another one of the account is given), encode for the header.
 */
export async function stepUp(
  client: TestClient,
  device: Device,
  options: { authenticator?: SoftwareAuthenticator; assertion?: GetAssertionOptions } = {},
): Promise<string> {
  const begin = await beginStepUp(client, device);
  const assertion = await (options.authenticator ?? device.authenticator).getAssertion(begin.options, client.publicOrigin, options.assertion);
  return encodeStepUp(assertion);
}

export interface AddedPasskey {
  authenticator: SoftwareAuthenticator;
  /** The 201 body of /auth/methods/passkeys/finish. */
  passkey: any;
  finish: CallResult;
}

/**
 * Adds another passkey to the device's account: begin with a step-up and an Idempotency-Key,
 * a credential from a new authenticator (the account's user handle is in options.user.id),
 * finish with another Idempotency-Key. Throws unless both steps succeed.
 */
export async function addPasskeyDetailed(
  client: TestClient,
  device: Device,
  options: { authenticator?: SoftwareAuthenticator; headers?: Record<string, string> } = {},
): Promise<AddedPasskey> {
  const authenticator = options.authenticator ?? new SoftwareAuthenticator();
  const begin = await client.as(device, 'POST', '/api/v1/auth/methods/passkeys/begin', {
    headers: { [STEP_UP_HEADER]: await stepUp(client, device), 'idempotency-key': randomUUID(), ...options.headers },
  });
  if (begin.status !== 200) fail('methods/passkeys/begin', begin);
  const credential = await authenticator.createCredential(begin.body.options, client.publicOrigin);
  const finish = await client.as(device, 'POST', '/api/v1/auth/methods/passkeys/finish', {
    body: { ceremony_id: begin.body.ceremony_id, credential },
    headers: { 'idempotency-key': randomUUID(), ...options.headers },
  });
  if (finish.status !== 201) fail('methods/passkeys/finish', finish);
  return { authenticator, passkey: finish.body, finish };
}

/** Adds another passkey to the device's account and returns its (new) authenticator. */
export async function addPasskey(client: TestClient, device: Device, options: { authenticator?: SoftwareAuthenticator; headers?: Record<string, string> } = {}): Promise<SoftwareAuthenticator> {
  return (await addPasskeyDetailed(client, device, options)).authenticator;
}

/** Sign-up like TestClient.signUp, with request headers (User-Agent, X-Forwarded-For) on register/finish. */
export async function signUpWith(
  client: TestClient,
  username: string,
  options: { authenticator?: SoftwareAuthenticator; headers?: Record<string, string>; key?: DpopKey } = {},
): Promise<Device> {
  const authenticator = options.authenticator ?? new SoftwareAuthenticator();
  const key = options.key ?? (await client.newKey());
  const begin = await client.call('POST', '/api/v1/auth/register/begin', { body: { username }, headers: options.headers });
  if (begin.status !== 200) fail('register/begin', begin);
  const credential = await authenticator.createCredential(begin.body.options, client.publicOrigin);
  const finish = await client.call('POST', '/api/v1/auth/register/finish', {
    body: { ceremony_id: begin.body.ceremony_id, username, credential },
    key,
    headers: options.headers,
  });
  if (finish.status !== 201) fail('register/finish', finish);
  return { username, key, authenticator, tokens: finish.body.tokens, accountId: finish.body.account.id };
}

/** Another session of the device's account: a passkey login with a fresh DPoP key (and headers). */
export async function logInAs(
  client: TestClient,
  device: Device,
  options: { authenticator?: SoftwareAuthenticator; headers?: Record<string, string> } = {},
): Promise<Device> {
  const authenticator = options.authenticator ?? device.authenticator;
  const key = await client.newKey();
  const begin = await client.call('POST', '/api/v1/auth/login/begin', { headers: options.headers });
  if (begin.status !== 200) fail('login/begin', begin);
  const credential = await authenticator.getAssertion(begin.body.options, client.publicOrigin);
  const finish = await client.call('POST', '/api/v1/auth/login/finish', { body: { ceremony_id: begin.body.ceremony_id, credential }, key, headers: options.headers });
  if (finish.status !== 200) fail('login/finish', finish);
  return { username: device.username, key, authenticator, tokens: finish.body, accountId: device.accountId };
}

/** The 6-digit RFC 6238 code (SHA-1, 30 s) an authenticator app shows at `timestamp`. */
export function totpCode(secret: string, timestamp: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp });
}

/** A well-formed code that is valid for no step in the ±1 window around `timestamp`. */
export function wrongTotpCode(secret: string, timestamp: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totpCode(secret, timestamp + d)));
  let n = Number(totpCode(secret, timestamp));
  let code: string;
  do {
    n = (n + 1) % 1_000_000;
    code = String(n).padStart(6, '0');
  } while (valid.has(code));
  return code;
}

/** Enrolls a TOTP authenticator (step-up, Idempotency-Key); throws unless 201. */
export async function enrollTotp(client: TestClient, device: Device, name = 'Authenticator', headers: Record<string, string> = {}): Promise<{ id: string; secret: string; otpauth_uri: string; body: any }> {
  const res = await client.as(device, 'POST', '/api/v1/auth/totp', {
    body: { name },
    headers: { [STEP_UP_HEADER]: await stepUp(client, device), 'idempotency-key': randomUUID(), ...headers },
  });
  if (res.status !== 201) fail('totp enroll', res);
  return { id: res.body.id, secret: res.body.secret, otpauth_uri: res.body.otpauth_uri, body: res.body };
}

/** Enrolls and confirms a TOTP authenticator with the code of `now`. */
export async function activeTotp(client: TestClient, device: Device, now: number, name = 'Authenticator'): Promise<{ id: string; secret: string }> {
  const enrolled = await enrollTotp(client, device, name);
  const confirm = await client.as(device, 'POST', `/api/v1/auth/totp/${enrolled.id}/confirm`, { body: { code: totpCode(enrolled.secret, now) } });
  if (confirm.status !== 200) fail('totp confirm', confirm);
  assert.equal(confirm.body.active, true);
  return { id: enrolled.id, secret: enrolled.secret };
}

/** Crockford base32, 8 groups of 4: the recovery key as the download writes it. */
export const RECOVERY_KEY_PATTERN = /\b[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){7}\b/;

/** GET /auth/recovery-key with a step-up; returns the key found in the attachment. */
export async function downloadRecoveryKey(client: TestClient, device: Device): Promise<string> {
  const res = await client.as(device, 'GET', '/api/v1/auth/recovery-key', { headers: { [STEP_UP_HEADER]: await stepUp(client, device) } });
  if (res.status !== 200) fail('recovery-key', res);
  const match = RECOVERY_KEY_PATTERN.exec(String(res.body));
  if (!match) throw new Error(`no recovery key in the download: ${String(res.body)}`);
  return match[0];
}
