// @vid/client/testing: what scripts and tests need beside the client, kept out of the main entry
// so no application bundles it. Node 20+ and browsers (WebCrypto only).
export { softwareAuthenticator, base64url } from './authenticator.js';
export type { SoftwareAuthenticator, SoftwarePasskey } from './authenticator.js';
export { encodeCbor } from './cbor.js';
export type { CborValue } from './cbor.js';
