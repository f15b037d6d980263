// DPoP (RFC 9449) with WebCrypto only, so the same code runs in browsers and Node 20: the device
// key (§2), its RFC 7638 thumbprint (the `jkt` tokens are bound to, §6) and one proof per request
// (§4.2). No JOSE library: a proof is a small compact JWS signed with crypto.subtle.

/** A WebCrypto CryptoKey, named without relying on the DOM lib (the client also builds for Node). */
export type WebCryptoKey = Parameters<typeof globalThis.crypto.subtle.sign>[1];

/** The device key (ES256) that proofs are signed with and the session is bound to (RFC 9449). */
export interface DpopKeyPair {
  /** Non-extractable: script can sign with it, nobody can read it (stays in IndexedDB in browsers). */
  privateKey: WebCryptoKey;
  /** Sent in every proof's header as a JWK. */
  publicKey: WebCryptoKey;
}

/** The public half as a JWK with only the members a thumbprint uses (RFC 7638 §3.2). */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

export interface ProofInput {
  /** §4.2 htm: the HTTP method. */
  method: string;
  /** §4.2 htu: the request URL; query and fragment are dropped here. */
  url: string;
  /** When sent with a token, §4.2 ath = base64url(SHA-256(token)). */
  accessToken?: string;
  /** §8 / §9: the server's latest DPoP-Nonce, when it asked for one. */
  nonce?: string;
  /** Milliseconds since the epoch for iat. */
  now: number;
}

const subtle = () => globalThis.crypto.subtle;
const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;

export function base64url(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = '';
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export const base64urlJson = (value: unknown): string => base64url(utf8(JSON.stringify(value)));

/** A new ES256 device key; the private half can never be exported (§2, §11.1 on key theft). */
export async function createDpopKey(): Promise<DpopKeyPair> {
  const pair = await subtle().generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  return pair as DpopKeyPair;
}

/**
 * The public key as the proof's `jwk` header (§4.2: never a private member), read from the raw
 * uncompressed point (SEC 1 §2.3.3: 0x04 | x | y). Not exported as 'jwk': on Node 20 that export
 * of a freshly generated key can deadlock the process when the garbage collector disposes of the
 * key's generation job at the same moment; the raw export runs off the main thread.
 */
export async function publicJwk(key: DpopKeyPair): Promise<PublicJwk> {
  const point = new Uint8Array(await subtle().exportKey('raw', key.publicKey));
  if (point.length !== 65 || point[0] !== 0x04) throw new Error('the DPoP key is not an EC P-256 key');
  return { kty: 'EC', crv: 'P-256', x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) };
}

/** RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order (§3.2). */
export async function thumbprint(jwk: PublicJwk): Promise<string> {
  const canonical = `{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}","y":"${jwk.y}"}`;
  return base64url(await subtle().digest('SHA-256', utf8(canonical)));
}

/** §4.2 ath: base64url of the SHA-256 of the ASCII access token. */
export async function accessTokenHash(accessToken: string): Promise<string> {
  return base64url(await subtle().digest('SHA-256', utf8(accessToken)));
}

/**
 * One proof (§4.2, §4.3). A fresh `jti` every time, including retries of the same call: the
 * server remembers jtis and refuses a repeat (§11.1).
 */
export async function signProof(key: DpopKeyPair, jwk: PublicJwk, input: ProofInput): Promise<string> {
  const url = new URL(input.url);
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk };
  const payload: Record<string, string | number> = {
    jti: globalThis.crypto.randomUUID(),
    htm: input.method.toUpperCase(),
    htu: url.origin + url.pathname,
    iat: Math.floor(input.now / 1000),
  };
  if (input.accessToken !== undefined) payload.ath = await accessTokenHash(input.accessToken);
  if (input.nonce !== undefined) payload.nonce = input.nonce;
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  // WebCrypto's ECDSA signature is the raw r||s (IEEE P1363) form, exactly what JWS ES256 wants
  // (RFC 7518 §3.4), so no DER conversion is needed.
  const signature = await subtle().sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, utf8(signingInput));
  return `${signingInput}.${base64url(signature)}`;
}
