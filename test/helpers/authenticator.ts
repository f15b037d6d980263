// Software WebAuthn authenticator for tests: real P-256 keys, real ECDSA signatures and real CBOR,
// so @simplewebauthn/server verification runs for real. References are to WebAuthn Level 3.
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR } from '@levischuck/tiny-cbor';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { newKeyPair } from './keys.js';

export interface SoftwareAuthenticatorOptions {
  attestation?: 'none' | 'packed'; // 'packed' = self attestation (§8.2), signed with the credential key
  aaguid?: string; // uuid string, default all zeroes
  backupEligible?: boolean; // BE flag, default true
  backedUp?: boolean; // BS flag, default true
  userVerification?: boolean; // UV flag, default true
  userPresence?: boolean; // UP flag, default true
  credentialIdLength?: number; // default 32 (lets tests produce over-long credential ids)
  attachment?: 'platform' | 'cross-platform'; // §5.1 authenticatorAttachment the client reports, default platform
  transports?: string[]; // §5.2.1 getTransports(), default internal and hybrid
}

export interface StoredCredential {
  id: string; // base64url
  rpId: string;
  userHandle: string; // base64url
  privateKey: KeyObject;
  counter: number;
}

export interface GetAssertionOptions {
  /** Use this credential (must be held for the rpId). */
  credentialId?: string;
  /** Force the signCount to this value (it is stored as the new counter). */
  counter?: number;
  /** Do not increment the counter (signCount repeats the stored value). */
  keepCounter?: boolean;
}

// Definite-length CBOR maps with integer or text keys (RFC 8949), as authenticators write them.
const cbor = { encode: (value: Map<string | number, unknown>) => Buffer.from(encodeCBOR(value as never)) };
const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

// §6.1 authenticator data flags
const UP = 0x01, UV = 0x04, BE = 0x08, BS = 0x10, AT = 0x40;

export class SoftwareAuthenticator {
  readonly credentials: StoredCredential[] = [];
  private readonly opts: Required<SoftwareAuthenticatorOptions>;

  constructor(options: SoftwareAuthenticatorOptions = {}) {
    this.opts = {
      attestation: 'none', aaguid: '00000000-0000-0000-0000-000000000000', backupEligible: true,
      backedUp: true, userVerification: true, userPresence: true, credentialIdLength: 32, attachment: 'platform', transports: ['internal', 'hybrid'], ...options,
    };
  }

  /** navigator.credentials.create(): an ES256 (P-256) resident credential for rp.id (or the origin's host). */
  async createCredential(options: PublicKeyCredentialCreationOptionsJSON, origin: string): Promise<RegistrationResponseJSON> {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id))) {
      const err = new Error('InvalidStateError: authenticator already holds an excluded credential');
      err.name = 'InvalidStateError';
      throw err;
    }
    const { privateKey, publicKey, publicJwk: jwk } = newKeyPair('ES256');
    const credId = randomBytes(this.opts.credentialIdLength);
    // COSE_Key, EC2 / ES256 / P-256 (§6.5.1.1, RFC 9053): integer keys, hence a Map
    const coseKey = cbor.encode(new Map<number, number | Buffer>([
      [1, 2], [3, -7], [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')],
    ]));
    // §6.5.2 attested credential data: aaguid(16) | credentialIdLength(u16 BE) | credentialId | COSE_Key
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(credId.length);
    const aaguid = Buffer.from(this.opts.aaguid.replace(/-/g, ''), 'hex');
    if (aaguid.length !== 16) throw new Error(`bad aaguid: ${this.opts.aaguid}`);
    const authData = this.authData(rpId, 0, AT, Buffer.concat([aaguid, idLen, credId, coseKey]));
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, origin);

    // §6.5.4 attestation object; §8.7 'none' has an empty attStmt, §8.2 packed self attestation
    // signs authData || SHA-256(clientDataJSON) with the credential key itself (no x5c).
    const attStmt = this.opts.attestation === 'packed'
      ? new Map<string, number | Buffer>([['alg', -7], ['sig', sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey)]])
      : new Map();
    const attestationObject = cbor.encode(new Map<string, unknown>([
      ['fmt', this.opts.attestation], ['attStmt', attStmt], ['authData', authData],
    ]));

    const id = b64u(credId);
    this.credentials.push({ id, rpId, userHandle: options.user.id, privateKey, counter: 0 });
    return {
      id, rawId: id, type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: this.opts.attachment,
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: this.opts.transports as never,
        publicKeyAlgorithm: -7,
        publicKey: b64u(publicKey.export({ format: 'der', type: 'spki' })),
        authenticatorData: b64u(authData),
      },
    };
  }

  /** navigator.credentials.get(): discoverable when allowCredentials is empty (newest credential for the rpId). */
  async getAssertion(
    options: PublicKeyCredentialRequestOptionsJSON, origin: string, opts: GetAssertionOptions = {},
  ): Promise<AuthenticationResponseJSON> {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const cred = this.credentials.filter((c) => c.rpId === rpId)
      .filter((c) => (opts.credentialId ? c.id === opts.credentialId : allowed.size === 0 || allowed.has(c.id)))
      .at(-1);
    if (!cred) {
      const err = new Error(`NotAllowedError: no matching credential for ${rpId}`);
      err.name = 'NotAllowedError';
      throw err;
    }
    if (opts.counter !== undefined) cred.counter = opts.counter;
    else if (!opts.keepCounter) cred.counter += 1;

    const authData = this.authData(rpId, cred.counter, 0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, origin);
    // §6.3.3 step 11: signature over authenticatorData || SHA-256(clientDataJSON), DER-encoded ECDSA
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), cred.privateKey);
    return {
      id: cred.id, rawId: cred.id, type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: cred.userHandle,
      },
    };
  }

  /** §6.1 authenticator data: rpIdHash(32) | flags(1) | signCount(u32 BE) | [attestedCredentialData] */
  private authData(rpId: string, signCount: number, extraFlags: number, attested?: Buffer): Buffer {
    const o = this.opts;
    const flags = extraFlags | (o.userPresence ? UP : 0) | (o.userVerification ? UV : 0)
      | (o.backupEligible ? BE : 0) | (o.backedUp ? BS : 0);
    const head = Buffer.alloc(5);
    head.writeUInt8(flags, 0);
    head.writeUInt32BE(signCount >>> 0, 1);
    return Buffer.concat([sha256(rpId), head, ...(attested ? [attested] : [])]);
  }

  /** §5.8.1 CollectedClientData, serialized as UTF-8 JSON. */
  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }
}
