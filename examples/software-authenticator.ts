// A passkey held in this process, for the examples: Node has no platform authenticator (a browser
// would call navigator.credentials, e.g. through @simplewebauthn/browser). It makes genuine
// WebAuthn Level 3 registrations and assertions (a P-256 key, ECDSA signatures, CBOR), so the
// server verifies them as it would a phone's. Not for real accounts: the key lives in memory.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { encodeCBOR } from '@levischuck/tiny-cbor';
import type { CreationOptions, RequestOptions } from '../client/src/index.js';

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
// §6.1 authenticator data flags: user present, user verified, backup eligible, backed up, attested data.
const UP = 0x01, UV = 0x04, BE = 0x08, BS = 0x10, AT = 0x40;

interface Passkey {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

export function softwareAuthenticator(origin: string) {
  const passkeys: Passkey[] = [];
  /** §5.8.1 CollectedClientData, as UTF-8 JSON. */
  const clientData = (type: 'webauthn.create' | 'webauthn.get', challenge: string) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  /** §6.1: rpIdHash | flags | signCount (u32, big-endian) | attested credential data. */
  const authData = (rpId: string, counter: number, flags: number, attested: Buffer[] = []) => {
    const head = Buffer.alloc(5);
    head.writeUInt8(flags | UP | UV | BE | BS, 0);
    head.writeUInt32BE(counter, 1);
    return Buffer.concat([sha256(rpId), head, ...attested]);
  };

  return {
    /** navigator.credentials.create(): a discoverable ES256 passkey for the relying party. */
    async createCredential(options: CreationOptions) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const id = randomBytes(32);
      // COSE_Key (RFC 9053 §7.1.1): kty EC2, alg ES256, crv P-256, x, y.
      const coseKey = encodeCBOR(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(id.length);
      // §6.5.2 attested credential data: AAGUID (zeros: no make announced) | id length | id | key.
      const data = authData(rpId, 0, AT, [Buffer.alloc(16), idLength, id, Buffer.from(coseKey)]);
      // §8.7 "none" attestation: the server learns the key, not the device's make.
      const attestationObject = encodeCBOR(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', data]]) as never);
      passkeys.push({ id: b64u(id), rpId, userHandle: options.user.id, privateKey, counter: 0 });
      return {
        id: b64u(id),
        rawId: b64u(id),
        type: 'public-key' as const,
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64u(clientData('webauthn.create', options.challenge)),
          attestationObject: b64u(attestationObject),
          transports: ['internal'],
        },
      };
    },

    /** navigator.credentials.get(): signs the challenge with the newest passkey the relying party allows. */
    async getAssertion(options: RequestOptions) {
      const rpId = options.rpId ?? new URL(origin).hostname;
      const allowed = new Set((options.allowCredentials ?? []).map((credential) => credential.id));
      const passkey = passkeys.filter((held) => held.rpId === rpId && (allowed.size === 0 || allowed.has(held.id))).at(-1);
      if (!passkey) throw new Error(`NotAllowedError: no passkey for ${rpId}`);
      passkey.counter += 1;
      const data = authData(rpId, passkey.counter, 0);
      const json = clientData('webauthn.get', options.challenge);
      // §6.3.3 step 11: ECDSA over authenticatorData | SHA-256(clientDataJSON), DER-encoded.
      const signature = sign('sha256', Buffer.concat([data, sha256(json)]), passkey.privateKey);
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key' as const,
        clientExtensionResults: {},
        response: { clientDataJSON: b64u(json), authenticatorData: b64u(data), signature: b64u(signature), userHandle: passkey.userHandle },
      };
    },
  };
}
