import { randomBytes } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { CEREMONY_TIMEOUT_MS, creationOptions, requestOptions } from './crypto/webauthn.js';
import type { RelyingParty } from './crypto/webauthn.js';
import { refuse } from './errors.js';
import { newId } from './ids.js';
import { ceremonyQueries } from './store/ceremonies.js';
import type { CeremonyRecord } from './store/ceremonies.js';
import type { Store, Tx } from './store/store.js';

/** A passkey the options name: to exclude (creation) or to allow (request). */
export interface CredentialRef {
  credential_id: string;
  /** JSON array of transports, as stored. */
  transports: string;
}

/** Who a ceremony belongs to: checked again when it is answered. */
export interface CeremonyScope {
  username?: string;
  userHandle?: string;
  accountId?: string;
  sessionId?: string;
}

export type CeremonyKind = 'register' | 'login' | 'add_passkey' | 'recovery' | 'step_up';

export interface Begun<Options> {
  ceremony_id: string;
  options: Options;
  schema_version: 1;
}

const credentialRefs = (credentials: CredentialRef[]) => credentials.map((c) => ({ id: c.credential_id, transports: JSON.parse(c.transports) as string[] }));

/**
 * WebAuthn ceremonies (WebAuthn L3 §13.4.3): options with a fresh challenge, kept server-side
 * for 300 s with the scope that asked, and answered once. Every flow that asks for a passkey
 * (sign-up, sign-in, another passkey, recovery, step-up) starts and ends here.
 */
export function createCeremonies(deps: { store: Store; rp: RelyingParty; now: () => number }) {
  const { rp, now } = deps;
  // `current`: a keyed request's ceremony (a recovery's, begun after its transaction) commits with its answer.
  const queries = deps.store.current(ceremonyQueries);

  const record = (kind: CeremonyKind, challenge: string, scope: CeremonyScope): CeremonyRecord => ({
    id: newId('cer'),
    kind,
    challenge,
    username: scope.username ?? null,
    user_handle: scope.userHandle ?? null,
    account_id: scope.accountId ?? null,
    session_id: scope.sessionId ?? null,
    expires_at: now() + CEREMONY_TIMEOUT_MS,
  });

  async function keep(kind: CeremonyKind, challenge: string, scope: CeremonyScope): Promise<string> {
    const ceremony = record(kind, challenge, scope);
    await queries.insert(ceremony);
    return ceremony.id;
  }

  return {
    /** Options to create a passkey for `user`, excluding the passkeys the account has. */
    async beginCreation(
      kind: CeremonyKind,
      user: { handle: string; name: string; displayName: string },
      exclude: CredentialRef[],
      scope: CeremonyScope,
    ): Promise<Begun<PublicKeyCredentialCreationOptionsJSON>> {
      const options = await creationOptions(rp, user, credentialRefs(exclude));
      return { ceremony_id: await keep(kind, options.challenge, { ...scope, userHandle: user.handle }), options, schema_version: 1 };
    },

    /**
     * A ceremony nobody is given, written in the caller's transaction: the write an unknown name
     * does in place of a known name's (decision 009). Its id never leaves here, it names no
     * account (so a take that needs one refuses it), and it is pruned when it expires.
     */
    async keepDecoy(tx: Tx, kind: CeremonyKind): Promise<void> {
      await tx.use(ceremonyQueries).insert(record(kind, randomBytes(32).toString('base64url'), {}));
    },

    /** Creation options whose challenge the caller keeps itself (a join attempt holds its own). */
    creationOptions: (user: { handle: string; name: string; displayName: string }, exclude: CredentialRef[]) => creationOptions(rp, user, credentialRefs(exclude)),

    /** Options to sign with one of `allow` (none: a discoverable sign-in). */
    async beginRequest(kind: CeremonyKind, allow: CredentialRef[], scope: CeremonyScope): Promise<Begun<PublicKeyCredentialRequestOptionsJSON>> {
      const options = await requestOptions(rp, credentialRefs(allow));
      return { ceremony_id: await keep(kind, options.challenge, scope), options, schema_version: 1 };
    },

    /** Step-up: the assertion names its challenge; only the session that asked may answer it. */
    async takeByChallenge(challenge: string, kind: CeremonyKind, sessionId: string): Promise<CeremonyRecord | undefined> {
      const ceremony = await queries.consumeByChallenge(challenge, kind, sessionId);
      return ceremony && ceremony.expires_at > now() ? ceremony : undefined;
    },

    /**
     * Takes a ceremony out, whatever the outcome of the verification that follows: a challenge
     * is answered once. With a session scope, only that session may answer it.
     */
    async take(id: string, kind: CeremonyKind, scope: { sessionId?: string; needsAccount?: boolean } = {}): Promise<CeremonyRecord> {
      return accept(await queries.consume(id, kind), scope);
    },

    /**
     * The check of take(), for a ceremony a caller's own statement took out (deleted by its id
     * and kind, whatever follows): refuses one that was not there, has expired or is not the
     * scope's.
     */
    accept,
  };

  function accept(ceremony: CeremonyRecord | undefined, scope: { sessionId?: string; needsAccount?: boolean } = {}): CeremonyRecord {
    const fromElsewhere = scope.sessionId !== undefined && ceremony?.session_id !== scope.sessionId;
    if (!ceremony || ceremony.expires_at <= now() || fromElsewhere || (scope.needsAccount && !ceremony.account_id)) {
      const detail = scope.sessionId !== undefined ? 'the ceremony is unknown, used, expired or from another session; begin again' : 'the ceremony is unknown, used or expired; begin again';
      throw refuse('ceremony_invalid', detail);
    }
    return ceremony;
  }
}

export type Ceremonies = ReturnType<typeof createCeremonies>;
