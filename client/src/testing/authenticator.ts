// A passkey held in memory, for scripts and tests: Node has no platform authenticator (a browser
// calls navigator.credentials, e.g. through @simplewebauthn/browser). It makes genuine WebAuthn
// Level 3 registrations and assertions (a P-256 key, ECDSA signatures, CBOR), so the server
// verifies them as it would a phone's. WebCrypto only, so it runs in Node 20+ and in browsers.
// Not for real accounts: the key lives in memory and is gone with the process.
import type { AuthenticationCredential, CreationOptions, RegistrationCredential, RequestOptions } from '../api.js';
import { encodeCbor } from './cbor.js';
import type { CborValue } from './cbor.js';

// §6.1 authenticator data flags: user present, user verified, backup eligible, backed up, attested data.
const UP = 0x01, UV = 0x04, BE = 0x08, BS = 0x10, AT = 0x40;
const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

interface HeldPasskey {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: CryptoKey;
  counter: number;
}

/** A passkey the software authenticator holds, as a test may want to inspect it. */
export interface SoftwarePasskey {
  /** The credential id, base64url. */
  id: string;
  /** The relying party it was made for. */
  rpId: string;
  /** The account's WebAuthn user handle (base64url). */
  userHandle: string;
  /** Signatures made so far (the signature counter, WebAuthn §6.1.1). */
  counter: number;
}

/** The two WebAuthn calls the client needs, answered in memory (see {@link softwareAuthenticator}). */
export interface SoftwareAuthenticator {
  /** navigator.credentials.create(): a discoverable ES256 passkey for the relying party. Pass it as `createCredential`. */
  createCredential(options: CreationOptions): Promise<RegistrationCredential>;
  /** navigator.credentials.get(): signs the challenge with the newest passkey the relying party allows. Pass it as `getAssertion` or `stepUp`. */
  getAssertion(options: RequestOptions): Promise<AuthenticationCredential>;
  /** The passkeys made so far, oldest first. */
  passkeys(): SoftwarePasskey[];
}

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/** RFC 4648 §5 base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const sha256 = async (data: Uint8Array): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest('SHA-256', data as BufferSource));

/**
 * WebCrypto signs ECDSA as r | s (IEEE P1363); WebAuthn §6.5.6 wants ES256 signatures
 * DER-encoded (SEC 1 §C.5: SEQUENCE of two INTEGERs, minimal, positive).
 */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (half: Uint8Array): Uint8Array => {
    let start = 0;
    while (start < half.length - 1 && half[start] === 0) start++;
    const trimmed = half.subarray(start);
    const body = trimmed[0]! & 0x80 ? concat(Uint8Array.of(0), trimmed) : trimmed;
    return concat(Uint8Array.of(0x02, body.length), body);
  };
  const sequence = concat(integer(raw.subarray(0, 32)), integer(raw.subarray(32)));
  return concat(Uint8Array.of(0x30, sequence.length), sequence);
}

/**
 * An authenticator for the origin the server knows as its PUBLIC_ORIGIN (passkeys are bound to
 * it): `register({ username, createCredential: authenticator.createCredential })`, later
 * `login({ getAssertion: authenticator.getAssertion })`.
 */
export function softwareAuthenticator(origin: string): SoftwareAuthenticator {
  const held: HeldPasskey[] = [];
  /** §5.8.1 CollectedClientData, as UTF-8 JSON. */
  const clientData = (type: 'webauthn.create' | 'webauthn.get', challenge: string) => bytesOf(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  /** §6.1: rpIdHash | flags | signCount (u32, big-endian) | attested credential data. */
  const authData = async (rpId: string, counter: number, flags: number, attested: Uint8Array[] = []) => {
    const head = new Uint8Array(5);
    const view = new DataView(head.buffer);
    view.setUint8(0, flags | UP | UV | BE | BS);
    view.setUint32(1, counter);
    return concat(await sha256(bytesOf(rpId)), head, ...attested);
  };

  return {
    async createCredential(options) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const { privateKey, publicKey } = await crypto.subtle.generateKey(ES256, false, ['sign', 'verify']);
      const jwk = await crypto.subtle.exportKey('jwk', publicKey);
      const id = crypto.getRandomValues(new Uint8Array(32));
      // COSE_Key (RFC 9053 §7.1.1): kty EC2, alg ES256, crv P-256, x, y.
      const coseKey = encodeCbor(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, fromBase64url(jwk.x!)], [-3, fromBase64url(jwk.y!)]]));
      const idLength = Uint8Array.of(id.length >> 8, id.length & 0xff);
      // §6.5.2 attested credential data: AAGUID (zeros: no make announced) | id length | id | key.
      const data = await authData(rpId, 0, AT, [new Uint8Array(16), idLength, id, coseKey]);
      // §8.7 "none" attestation: the server learns the key, not the device's make.
      const attestationObject = encodeCbor(new Map<string, CborValue>([['fmt', 'none'], ['attStmt', new Map<string, CborValue>()], ['authData', data]]));
      held.push({ id: base64url(id), rpId, userHandle: options.user.id, privateKey, counter: 0 });
      return {
        id: base64url(id),
        rawId: base64url(id),
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: base64url(clientData('webauthn.create', options.challenge)),
          attestationObject: base64url(attestationObject),
          transports: ['internal'],
        },
      } as RegistrationCredential;
    },

    async getAssertion(options) {
      const rpId = options.rpId ?? new URL(origin).hostname;
      const allowed = new Set((options.allowCredentials ?? []).map((credential) => credential.id));
      const passkey = held.filter((candidate) => candidate.rpId === rpId && (allowed.size === 0 || allowed.has(candidate.id))).at(-1);
      if (!passkey) throw new Error(`NotAllowedError: no passkey for ${rpId}`);
      passkey.counter += 1;
      const data = await authData(rpId, passkey.counter, 0);
      const json = clientData('webauthn.get', options.challenge);
      // §6.3.3 step 11: ECDSA over authenticatorData | SHA-256(clientDataJSON).
      const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, passkey.privateKey, concat(data, await sha256(json)) as BufferSource));
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: base64url(json), authenticatorData: base64url(data), signature: base64url(derSignature(raw)), userHandle: passkey.userHandle },
      } as AuthenticationCredential;
    },

    passkeys: () => held.map(({ id, rpId, userHandle, counter }) => ({ id, rpId, userHandle, counter })),
  };
}
