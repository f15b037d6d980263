import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuthContext } from '../../platform/caller.js';
import type { Begun, CeremonyKind, Ceremonies, CredentialRef } from '../../platform/ceremonies.js';
import type { CeremonyRecord } from '../../platform/store/ceremonies.js';
import type { ClientInfo, LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { verifyCreation } from '../../platform/crypto/webauthn.js';
import type { NewCredential, RelyingParty } from '../../platform/crypto/webauthn.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { requiredText } from '../../platform/text.js';
import type { SecurityLog } from '../security-log/service.js';
import { PASSKEY_NAME_MAX, passkeyName } from './passkey-names.js';
import type { PasskeyRecord, PasskeyWithOwner, passkeyQueries } from './queries.js';

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
  current: boolean;
  schema_version: 1;
}

/** A passkey as its owner sees it; `current` when the caller's session signed in with it. */
export function passkeyView(row: PasskeyRecord, currentId: string | null = null): PasskeyView {
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
    current: row.id === currentId,
    schema_version: 1,
  };
}

/** A passkey is about to be removed by its owner; listeners drop what belongs to it (its key bundle). */
export interface PasskeyRemoval {
  accountId: string;
  methodId: string;
}

// Another account's id answers like an unknown one, so ids cannot be probed (404, never 403).
const notFound = () => refuse('method_not_found', 'no passkey of yours has this id');
const credentialExists = () => refuse('credential_exists', 'this passkey is registered already');

/**
 * The account's passkeys: list, rename, add another, remove all but the last (spec rule 8); and
 * the passkey records the sign-in, step-up, recovery and join flows read and write.
 */
export function createPasskeyService(deps: {
  db: RepositoryOf<{ passkeys: typeof passkeyQueries }>;
  clock: Clock;
  rp: RelyingParty;
  ceremonies: Ceremonies;
  securityLog: SecurityLog;
  /** The passkey the caller's session signed in with (the sessions service), to mark "this device". */
  signInPasskeyOf: (auth: AuthContext) => Promise<string | null>;
}) {
  const { db, clock, securityLog, ceremonies, signInPasskeyOf } = deps;
  // Modules built later (keys) follow a removal in its transaction, so they can tell their own
  // audience; this module never learns who listens (dependencies stay one-way).
  const removing = txHook<PasskeyRemoval>();

  /** Stores a verified new credential for an account, bound to the registering device's key. */
  async function add(tx: Tx, input: { accountId: string; credential: NewCredential; jkt: string; client: ClientInfo; now: number }): Promise<string> {
    const id = newId('pk');
    const { credential } = input;
    await db.in(tx).passkeys.insert({
      id,
      account_id: input.accountId,
      credential_id: credential.credentialId,
      public_key: credential.publicKey,
      counter: credential.counter,
      transports: JSON.stringify(credential.transports),
      backup_eligible: credential.backupEligible ? 1 : 0,
      backed_up: credential.backedUp ? 1 : 0,
      aaguid: credential.aaguid,
      name: passkeyName(credential, input.client.userAgent),
      dpop_jkt: input.jkt,
      version: 1,
      created_at: input.now,
      last_used_at: null,
      flagged_at: null,
    });
    return id;
  }

  return {
    /** The refusal of a credential id another passkey holds (a unique violation on insert). */
    alreadyRegistered: credentialExists,
    add,
    /** Subscribe to: a passkey is about to be removed (in the removal's transaction). */
    onRemoving: removing.subscribe,
    /** The account's credentials, for a ceremony's exclude or allow list (`current`: a keyed recovery asks after its transaction). */
    credentials: (accountId: string): Promise<CredentialRef[]> => db.current.passkeys.listCredentialIds(accountId),
    byCredentialId: (credentialId: string) => db.direct.passkeys.findByCredentialId(credentialId),
    /**
     * A sign-in's first steps (WebAuthn L3 §13.4.3, §7.2 step 6): takes its ceremony out, whatever
     * follows, and reads the passkey its assertion names with the owner's user handle; the
     * ceremony is checked as take() checks it. One round trip on PostgreSQL.
     */
    async takeForSignIn(ceremonyId: string, kind: CeremonyKind, credentialId: string): Promise<{ ceremony: CeremonyRecord; passkey: PasskeyWithOwner | undefined }> {
      const taken = await db.direct.passkeys.takeWithPasskey(ceremonyId, kind, credentialId);
      return { ceremony: ceremonies.accept(taken.ceremony), passkey: taken.passkey };
    },
    /** A sign-in's counter, backup state and device key, compare-and-swapped on the counter verified against. */
    recordSignIn: (tx: Tx, id: string, expectedCounter: number, use: { counter: number; backed_up: number; at: number; dpop_jkt: string }) =>
      db.in(tx).passkeys.recordUse(id, expectedCounter, use),
    recordAssertion: db.direct.passkeys.recordAssertion,
    flag: db.direct.passkeys.flag,

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<PasskeyView>> {
      const current = await signInPasskeyOf(auth);
      return page((after, size) => db.direct.passkeys.list(auth.account.id, after, size), cursor, limit, (row) => passkeyView(row, current));
    },

    /** Every passkey as the list shows it, no key material (the account export; no session, so none is `current`). */
    async *exportPages(accountId: string): AsyncIterable<PasskeyView[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.passkeys.list(accountId, after, limit), (row) => row)) yield rows.map((row) => passkeyView(row));
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).passkeys.removeAll(accountId);
    },

    async get(auth: AuthContext, id: string): Promise<PasskeyView> {
      const row = await db.direct.passkeys.find(auth.account.id, id);
      if (!row) throw notFound();
      return passkeyView(row, await signInPasskeyOf(auth));
    },

    async rename(auth: AuthContext, id: string, expectedVersion: number, name: string, client: LocatedClient): Promise<PasskeyView> {
      // Trimmed and checked like every name people read (no control or bidi characters), so
      // what is stored is what the list shows.
      const cleaned = requiredText(name, { path: '/name', max: PASSKEY_NAME_MAX });
      if (!cleaned.ok) throw validationFailed([cleaned.error]);
      const current = await signInPasskeyOf(auth);
      return db.transaction(async (q, tx) => {
        const existing = await q.passkeys.find(auth.account.id, id);
        if (!existing) throw notFound();
        const renamed = await q.passkeys.rename(auth.account.id, id, expectedVersion, cleaned.text);
        if (!renamed) throw refuse('version_mismatch', 'the passkey changed since you read it');
        await signal(tx, auth.account.id, 'methods.changed');
        await securityLog.record(tx, auth.account.id, 'passkey_renamed', client);
        return passkeyView(renamed, current);
      });
    },

    async addBegin(auth: AuthContext): Promise<Begun<PublicKeyCredentialCreationOptionsJSON>> {
      const { account } = auth;
      return ceremonies.beginCreation(
        'add_passkey',
        { handle: account.user_handle, name: account.username_canonical, displayName: account.username },
        await db.direct.passkeys.listCredentialIds(account.id),
        { accountId: account.id, sessionId: auth.sessionId },
      );
    },

    async addFinish(auth: AuthContext, ceremonyId: string, response: RegistrationResponseJSON, client: LocatedClient): Promise<PasskeyView> {
      const ceremony = await ceremonies.take(ceremonyId, 'add_passkey', { sessionId: auth.sessionId });
      const credential = await verifyCreation(deps.rp, response, ceremony.challenge);
      try {
        return await db.transaction(async (q, tx) => {
          const now = clock.now();
          const id = await add(tx, { accountId: auth.account.id, credential, jkt: auth.jkt, client, now });
          await signal(tx, auth.account.id, 'methods.changed');
          await securityLog.record(tx, auth.account.id, 'passkey_added', client);
          return passkeyView((await q.passkeys.find(auth.account.id, id))!);
        });
      } catch (error) {
        if (uniqueViolation(error)) throw credentialExists();
        throw error;
      }
    },

    async remove(auth: AuthContext, id: string, client: LocatedClient): Promise<void> {
      await db.transaction(async (q, tx) => {
        // Signalling first takes the account row's lock, so two concurrent removals are
        // serialised and cannot both see "two left" (PostgreSQL; SQLite serialises writers).
        await signal(tx, auth.account.id, 'methods.changed');
        if (!(await q.passkeys.find(auth.account.id, id))) throw notFound();
        if ((await q.passkeys.count(auth.account.id)) <= 1) throw refuse('last_method', 'the last passkey cannot be removed; add another first');
        await removing.run(tx, { accountId: auth.account.id, methodId: id });
        await q.passkeys.remove(auth.account.id, id);
        await securityLog.record(tx, auth.account.id, 'passkey_removed', client);
      });
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
