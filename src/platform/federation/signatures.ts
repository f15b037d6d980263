import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { isInnerList, parseDictionary, serializeInnerList } from 'structured-headers';
import type { Dictionary, InnerList } from 'structured-headers';
import type { RegionPeer } from '../config.js';
import { checkContentDigest, contentDigest } from './digest.js';
import type { NonceStore } from './nonces.js';
import type { RegionRefusalReason } from './reasons.js';

/**
 * The signature every request between this operator's regions carries: HTTP Message Signatures
 * (RFC 9421) with Ed25519 (§3.3.6) over the method, the target URI, the Content-Digest of the
 * body (RFC 9530) and the Content-Type, in one profile with no options, so a receiver checks
 * that profile exactly instead of whatever a signature chose to cover (RFC 9421 §1.4, §7.2.1).
 */

/**
 * What is covered, in this order (RFC 9421 §2.2.1 @method, §2.2.2 @target-uri, §2.1 fields).
 * @target-uri rather than @authority + @path: it also covers the scheme and the query.
 */
export const REGION_COVERED_COMPONENTS = ['@method', '@target-uri', 'content-digest', 'content-type'] as const;
/** RFC 9421 §2.3 `tag`: names this application's profile, so a signature made for another use never passes here. */
export const REGION_SIGNATURE_TAG = 'vid-region';
/** RFC 9421 §3.3.6: the algorithm name of EdDSA over Curve25519. */
export const REGION_SIGNATURE_ALG = 'ed25519';
/** The signature's label in Signature-Input and Signature (RFC 9421 §4.1): any name; the tag is what counts. */
const LABEL = 'vid';
/** Seconds a sender's clock may run ahead of ours before `created` counts as in the future. */
export const REGION_CLOCK_SKEW_SECONDS = 5;
/** The validity a signature gets when the caller gives none: REGION_REQUEST_MAX_AGE_S's default. */
const DEFAULT_VALIDITY_SECONDS = 60;
/** The parameters a signature must carry (RFC 9421 §2.3), nothing more. */
const PARAMETERS = new Set(['created', 'expires', 'keyid', 'alg', 'nonce', 'tag']);
/** 128 random bits are 22 base64url characters; a little room for other senders, never a long string. */
const NONCE = /^[A-Za-z0-9_-]{22,64}$/;

export interface RegionSigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface OutgoingRegionRequest {
  method: string;
  /** Absolute: the peer's url and the path (and query) asked for. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface IncomingRegionRequest {
  method: string;
  /** Absolute, as this region's public origin sees it: PUBLIC_ORIGIN and the request's path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received, before any parsing (its digest is checked against these bytes). */
  body: string | Buffer;
}

export type RegionVerification =
  | { ok: true; region: string; kid: string }
  /** `region` is the sender a known kid names, when the refusal came after the key was found. */
  | { ok: false; reason: RegionRefusalReason; region?: string };

export interface RegionVerifyOptions {
  peers: RegionPeer[];
  /** Milliseconds since the epoch. */
  now: number;
  maxAgeSeconds: number;
  nonces: NonceStore;
}

/** Header names in lower case, values joined as one field line would carry them (RFC 9110 §5.3), absent ones dropped. */
function lowerCased(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : value;
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${joined}` : joined;
  }
  return out;
}

/** One spelling of a URL on both sides (WHATWG serialization), so `https://x` and `https://x/` sign alike. */
function normalisedUrl(url: string): string {
  return new URL(url).href;
}

/** 128 random bits, base64url (RFC 9421 §2.3 `nonce`; §7.2.2 on replay). */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Signs a request to another region: adds Content-Digest (RFC 9530 §2) of `body`, then
 * Signature-Input and Signature (RFC 9421 §4.1, §4.2) over REGION_COVERED_COMPONENTS with
 * created, expires (created + validitySeconds), keyid, alg, nonce and tag (§2.3). Returns every
 * header to send, names in lower case; a missing Content-Type is set to application/json, since
 * it is covered and must be present. `now` is in milliseconds.
 */
export async function signRequest(
  request: OutgoingRegionRequest,
  key: RegionSigningKey,
  now: number,
  nonce: string = newNonce(),
  validitySeconds: number = DEFAULT_VALIDITY_SECONDS,
): Promise<Record<string, string>> {
  const headers = lowerCased(request.headers);
  // A signature over a request that already carries one would add a second (§4.3); this profile allows one.
  delete headers['signature'];
  delete headers['signature-input'];
  headers['content-type'] ??= 'application/json';
  headers['content-digest'] = contentDigest(request.body);
  const created = Math.floor(now / 1000);
  const signed = await httpbis.signMessage(
    {
      key: createSigner(key.privateKey, REGION_SIGNATURE_ALG, key.kid),
      name: LABEL,
      fields: [...REGION_COVERED_COMPONENTS],
      params: ['created', 'expires', 'keyid', 'alg', 'nonce', 'tag'],
      paramValues: { created: new Date(created * 1000), expires: new Date((created + validitySeconds) * 1000), nonce, tag: REGION_SIGNATURE_TAG },
    },
    { method: request.method, url: normalisedUrl(request.url), headers },
  );
  // The library names the fields Signature and Signature-Input; every name in lower case, as promised.
  return lowerCased(signed.headers);
}

type Refusal = { ok: false; reason: RegionRefusalReason; region?: string };
const refuse = (reason: RegionRefusalReason, region?: string): Refusal => (region ? { ok: false, reason, region } : { ok: false, reason });

interface Profile {
  input: InnerList;
  signature: Buffer;
  created: number;
  expires: number;
  keyid: string;
  nonce: string;
}

/**
 * Finds the one signature tagged vid-region and checks it follows the profile: exactly the
 * covered components, no component parameters, exactly the parameters with the right types and
 * alg. RFC 9421 §3.2 leaves it to the verifier which signatures and components it requires.
 */
function readProfile(headers: Record<string, string>): Profile | RegionRefusalReason {
  const inputField = headers['signature-input'];
  const signatureField = headers['signature'];
  if (inputField === undefined && signatureField === undefined) return 'unsigned';
  if (inputField === undefined || signatureField === undefined) return 'malformed';
  let inputs: Dictionary;
  let signatures: Dictionary;
  try {
    inputs = parseDictionary(inputField);
    signatures = parseDictionary(signatureField);
  } catch {
    return 'malformed';
  }
  // §2.3 `tag`: other applications' signatures on the same message are none of our business.
  const ours = [...inputs].filter(([, member]) => isInnerList(member) && member[1].get('tag') === REGION_SIGNATURE_TAG);
  if (ours.length !== 1) return 'malformed';
  const [label, member] = ours[0]!;
  const input = member as InnerList;
  const signatureMember = signatures.get(label);
  if (!signatureMember || isInnerList(signatureMember) || !(signatureMember[0] instanceof ArrayBuffer)) return 'malformed';

  const components = input[0];
  if (components.length !== REGION_COVERED_COMPONENTS.length) return 'malformed';
  const covered = new Set<string>();
  for (const [name, params] of components) {
    if (typeof name !== 'string' || params.size > 0) return 'malformed';
    covered.add(name);
  }
  if (!REGION_COVERED_COMPONENTS.every((name) => covered.has(name))) return 'malformed';

  const params = input[1];
  for (const name of params.keys()) if (!PARAMETERS.has(name)) return 'malformed';
  const created = params.get('created');
  const expires = params.get('expires');
  const keyid = params.get('keyid');
  const alg = params.get('alg');
  const nonce = params.get('nonce');
  if (!Number.isInteger(created) || !Number.isInteger(expires)) return 'malformed';
  if (typeof keyid !== 'string' || alg !== REGION_SIGNATURE_ALG) return 'malformed';
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) return 'malformed';
  return { input, signature: Buffer.from(signatureMember[0]), created: created as number, expires: expires as number, keyid, nonce };
}

/**
 * Verifies a request from another region, cheapest checks first, the nonce last so only an
 * otherwise valid signature spends one (RFC 9421 §3.2 verification steps, §7.2.2 replay):
 * 1. Signature-Input and Signature both absent: `unsigned`; the profile not followed: `malformed`.
 * 2. keyid one of some peer's kids, which makes that peer the sender: else `unknown_key`.
 * 3. created at most REGION_CLOCK_SKEW_SECONDS ahead, expires not passed, and expires - created
 *    at most maxAgeSeconds (§2.3, §7.2.2): else `stale`.
 * 4. Content-Digest matches the body bytes (RFC 9530 §2): else `digest_mismatch`.
 * 5. The Ed25519 signature over the signature base rebuilt from this request (§2.5): else `bad_signature`.
 * 6. The nonce used for the first time by that region: else `replayed`.
 */
export async function verifyRequest(request: IncomingRegionRequest, opts: RegionVerifyOptions): Promise<RegionVerification> {
  const headers = lowerCased(request.headers);
  const profile = readProfile(headers);
  if (typeof profile === 'string') return refuse(profile);
  if (headers['content-digest'] === undefined || headers['content-type'] === undefined) return refuse('malformed');

  const peer = opts.peers.find((candidate) => candidate.keys.has(profile.keyid));
  const publicKey = peer?.keys.get(profile.keyid);
  if (!peer || !publicKey) return refuse('unknown_key');

  if (profile.created * 1000 > opts.now + REGION_CLOCK_SKEW_SECONDS * 1000) return refuse('stale', peer.id);
  if (opts.now > profile.expires * 1000) return refuse('stale', peer.id);
  if (profile.expires <= profile.created || profile.expires - profile.created > opts.maxAgeSeconds) return refuse('stale', peer.id);

  const digest = checkContentDigest(headers['content-digest'], request.body);
  if (digest === 'malformed') return refuse('malformed', peer.id);
  if (digest === 'mismatch') return refuse('digest_mismatch', peer.id);

  let url: string;
  try {
    url = normalisedUrl(request.url);
  } catch {
    return refuse('malformed', peer.id);
  }
  // §2.5: the base is rebuilt from this message in the covered order as received, its last line the Signature-Input member as received.
  let base: string;
  try {
    const fields = profile.input[0].map(([name]) => name as string);
    const lines = httpbis.createSignatureBase({ fields }, { method: request.method, url, headers });
    lines.push(['"@signature-params"', [serializeInnerList(profile.input)]]);
    base = httpbis.formatSignatureBase(lines);
  } catch {
    return refuse('malformed', peer.id);
  }
  const valid = await createVerifier(publicKey, REGION_SIGNATURE_ALG)(Buffer.from(base), profile.signature);
  if (!valid) return refuse('bad_signature', peer.id);

  // Remembered until the signature could no longer pass anyway (expires, with the skew allowed).
  const fresh = await opts.nonces.firstUse(peer.id, profile.nonce, (profile.expires + REGION_CLOCK_SKEW_SECONDS) * 1000);
  if (!fresh) return refuse('replayed', peer.id);
  return { ok: true, region: peer.id, kid: profile.keyid };
}
