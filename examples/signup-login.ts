/**
 * Signs up, calls /me, renews, logs in again and logs out against a running VID server:
 *
 *   npm start                                   # in one terminal
 *   npx tsx examples/signup-login.ts [base_url] [username]
 *
 * A browser would use navigator.credentials (see @simplewebauthn/browser); this script stands
 * in a software authenticator that makes genuine WebAuthn attestations and assertions.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { SoftwareAuthenticator } from '../test/helpers/authenticator.js';

const baseUrl = (process.argv[2] ?? 'http://localhost:8080').replace(/\/$/, '');
const username = process.argv[3] ?? `demo${Math.floor(Math.random() * 1e6)}`;
const api = `${baseUrl}/api/v1`;
const origin = new URL(baseUrl).origin;

// 1. The device key: non-extractable, it never leaves this process (a browser keeps it in IndexedDB).
const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: false });
const jwk = await exportJWK(publicKey);
console.log('device key thumbprint (jkt):', await calculateJwkThumbprint(jwk));

/** RFC 9449 §4.2: one fresh proof per request, bound to method, URL and (with a token) its hash. */
async function proof(method: string, url: string, accessToken?: string): Promise<string> {
  const ath = accessToken
    ? Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))).toString('base64url')
    : undefined;
  return new SignJWT({ htm: method, htu: url, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...(ath ? { ath } : {}) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
    .sign(privateKey);
}

async function call(method: string, path: string, body?: unknown, accessToken?: string): Promise<any> {
  const url = api + path;
  const headers: Record<string, string> = { dpop: await proof(method, url, accessToken) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `DPoP ${accessToken}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(`${method} ${path} -> ${response.status} ${json?.code}: ${json?.detail}`);
  return json;
}

const authenticator = new SoftwareAuthenticator();

// 2. Is the name free? (reserves nothing)
console.log('check:', await call('POST', '/auth/username/check', { username }));

// 3. Sign up: creation options, the authenticator's attestation, then finish with a DPoP proof.
const begin = await call('POST', '/auth/register/begin', { username });
const attestation = await authenticator.createCredential(begin.options, origin);
const registration = await call('POST', '/auth/register/finish', { ceremony_id: begin.ceremony_id, username, credential: attestation });
let tokens = registration.tokens;
console.log('signed up as', registration.account.username, 'session', tokens.session_id);

// 4. Call the API: every request carries the token and a fresh proof by the same key.
console.log('me:', await call('GET', '/me', undefined, tokens.access_token));

// 5. Renew before the access token expires: the refresh token rotates, reuse would revoke the session.
tokens = await call('POST', '/auth/token/renew', { refresh_token: tokens.refresh_token });
console.log('renewed; access token valid for', tokens.expires_in, 's');

// 6. A discoverable login, as on a returning visit.
const loginBegin = await call('POST', '/auth/login/begin');
const assertion = await authenticator.getAssertion(loginBegin.options, origin);
tokens = await call('POST', '/auth/login/finish', { ceremony_id: loginBegin.ceremony_id, credential: assertion });
console.log('logged in again; sessions:', (await call('GET', '/auth/sessions', undefined, tokens.access_token)).data.length);

await call('POST', '/auth/logout', undefined, tokens.access_token);
console.log('logged out');
