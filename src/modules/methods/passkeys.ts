import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../platform/clock.js';
import type { Config } from '../../platform/config.js';
import { CEREMONY_TIMEOUT_MS, creationOptions, verifyCreation } from '../../platform/crypto/webauthn.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { Store } from '../../platform/store/store.js';
import type { ClientInfo } from '../../platform/client-info.js';
import { decodeCursor, toPage } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { insertPasskey, passkeyView } from './passkey-records.js';
import type { PasskeyView } from './passkey-records.js';
import type { SecurityLog } from '../security-log/service.js';
import type { AuthContext } from '../sessions/service.js';

// Another account's id answers like an unknown one, so ids cannot be probed (404, never 403).
const notFound = () => new AppError(404, 'method_not_found', 'Method not found', { detail: 'no passkey of yours has this id' });

/** The account's passkeys: list, rename, add another, remove all but the last (spec rule 8). */
export function createMethodsService(deps: { store: Store; clock: Clock; config: Config; securityLog: SecurityLog }) {
  const { store, clock, securityLog } = deps;
  const rp = deps.config.webauthn;

  return {
    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<PasskeyView>> {
      const rows = await store.passkeys.list(auth.account.id, decodeCursor(cursor), limit + 1);
      return toPage(rows, limit, passkeyView);
    },

    async rename(auth: AuthContext, id: string, expectedVersion: number, name: string, client: ClientInfo): Promise<PasskeyView> {
      const located = await securityLog.locate(client);
      return store.transaction(async (tx) => {
        const existing = await tx.passkeys.find(auth.account.id, id);
        if (!existing) throw notFound();
        const renamed = await tx.passkeys.rename(auth.account.id, id, expectedVersion, name);
        if (!renamed) throw new AppError(412, 'version_mismatch', 'Version mismatch', { detail: 'the passkey changed since you read it' });
        await tx.events.append(auth.account.id, 'methods.changed', '/auth/methods', clock.now());
        await securityLog.record(tx, auth.account.id, 'passkey_renamed', located);
        return passkeyView(renamed);
      });
    },

    async addBegin(auth: AuthContext): Promise<{ ceremony_id: string; options: PublicKeyCredentialCreationOptionsJSON }> {
      const existing = await store.passkeys.listCredentialIds(auth.account.id);
      const options = await creationOptions(
        rp,
        { handle: auth.account.user_handle, name: auth.account.username_canonical, displayName: auth.account.username },
        existing.map((p) => ({ id: p.credential_id, transports: JSON.parse(p.transports) })),
      );
      const id = newId('cer');
      await store.ceremonies.insert({
        id,
        kind: 'add_passkey',
        challenge: options.challenge,
        username: null,
        user_handle: auth.account.user_handle,
        account_id: auth.account.id,
        session_id: auth.sessionId,
        expires_at: clock.now() + CEREMONY_TIMEOUT_MS,
      });
      return { ceremony_id: id, options };
    },

    async addFinish(auth: AuthContext, ceremonyId: string, response: RegistrationResponseJSON, client: ClientInfo): Promise<PasskeyView> {
      const ceremony = await store.ceremonies.consume(ceremonyId, 'add_passkey');
      if (!ceremony || ceremony.expires_at <= clock.now() || ceremony.session_id !== auth.sessionId) {
        throw new AppError(400, 'ceremony_invalid', 'Ceremony invalid', { detail: 'the ceremony is unknown, used, expired or from another session; begin again' });
      }
      const credential = await verifyCreation(rp, response, ceremony.challenge);
      const located = await securityLog.locate(client);
      try {
        return await store.transaction(async (tx) => {
          const now = clock.now();
          const id = await insertPasskey(tx, { accountId: auth.account.id, credential, jkt: auth.jkt, client, now });
          await tx.events.append(auth.account.id, 'methods.changed', '/auth/methods', now);
          await securityLog.record(tx, auth.account.id, 'passkey_added', located);
          return passkeyView((await tx.passkeys.find(auth.account.id, id))!);
        });
      } catch (error) {
        if (uniqueViolation(error)) throw new AppError(409, 'credential_exists', 'Passkey already registered', { detail: 'this passkey is registered already' });
        throw error;
      }
    },

    async remove(auth: AuthContext, id: string, client: ClientInfo): Promise<void> {
      const located = await securityLog.locate(client);
      await store.transaction(async (tx) => {
        // Appending the signal first takes the account row's lock, so two concurrent removals
        // are serialised and cannot both see "two left" (PostgreSQL; SQLite serialises writers).
        await tx.events.append(auth.account.id, 'methods.changed', '/auth/methods', clock.now());
        if (!(await tx.passkeys.find(auth.account.id, id))) throw notFound();
        if ((await tx.passkeys.count(auth.account.id)) <= 1) {
          throw new AppError(409, 'last_method', 'Last passkey', { detail: 'the last passkey cannot be removed; add another first' });
        }
        await tx.passkeys.remove(auth.account.id, id);
        await securityLog.record(tx, auth.account.id, 'passkey_removed', located);
      });
    },
  };
}

export type MethodsService = ReturnType<typeof createMethodsService>;
