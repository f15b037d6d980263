import type { AuthContext } from '../../platform/caller.js';
import { clientInfo, deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { AttemptLimiter } from '../../platform/limits/attempt-limiter.js';
import { createAuthFailures } from '../../platform/limits/auth-failures.js';
import type { AuthFailureLimits } from '../../platform/limits/auth-failures.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { requiredText } from '../../platform/text.js';
import type { SecurityLog } from '../security-log/service.js';
import { basicCredentials, newPassword, passwordHasher, tokenIdOf } from './passwords.js';
import type { DavTokenRecord, davTokenQueries } from './queries.js';
import { DAV_TOKEN_LIMITS } from './schemas.js';

/** Who an address book's request speaks for: the account, its username now, and the password used. */
export interface DavPrincipal {
  accountId: string;
  username: string;
  tokenId: string;
}

export interface DavTokenView {
  id: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  last_user_agent: string | null;
  device_label: string | null;
  schema_version: 1;
}

export interface CreatedDavToken {
  id: string;
  label: string;
  secret: string;
  username: string;
  server_url: string;
  created_at: string;
  schema_version: 1;
}

/** A use is stamped at most once a minute per password: no write per request (PRODUCT §9). */
export const LAST_USED_RESOLUTION_MS = 60_000;

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const unauthorized = (detail: string) => refuse('dav_unauthorized', detail);
/** One detail for every wrong credential, so a refusal never says which part was wrong. */
const WRONG = 'the user name or address-book password is wrong, or the password was revoked';

function view(row: DavTokenRecord): DavTokenView {
  return {
    id: row.id,
    label: row.label,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    last_user_agent: row.last_user_agent,
    device_label: row.last_user_agent === null ? null : deviceLabel(row.last_user_agent),
    schema_version: 1,
  };
}

/**
 * Address-book passwords (PRODUCT §9, decision 150): a person makes one per phone or desktop
 * address book, which signs in with HTTP Basic (RFC 7617) under /dav/. `authenticate` is what
 * the CardDAV routes call on every request; the rest serves /dav-tokens.
 */
export function createDavTokenService(deps: {
  db: RepositoryOf<{ tokens: typeof davTokenQueries }>;
  clock: Clock;
  /** Keys the password hashes, derived from each key of the ring, the current one first (decision 110). */
  tokenKeys: readonly Buffer[];
  /** Where the CardDAV server answers: PUBLIC_ORIGIN. */
  publicOrigin: string;
  securityLog: SecurityLog;
  /** The canonical form of a typed username (the usernames service), undefined when it cannot be one. */
  canonicalOf(username: string): string | undefined;
  limiter: AttemptLimiter;
  /** Failed sign-ins allowed per client address and per password id in a minute. */
  failureLimits: AuthFailureLimits;
  warn(error: unknown, what: string): void;
}) {
  const { db, clock, securityLog } = deps;
  const hasher = passwordHasher(deps.tokenKeys);
  // The platform's failed-authentication counters (decision 003), on keys of their own so an
  // address book's failures and a session's are counted apart; Redis shares them across nodes.
  const failures = createAuthFailures(
    { hit: (key, limit, windowMs) => deps.limiter.hit(`dav-${key}`, limit, windowMs), enforce: (key, ...rest) => deps.limiter.enforce(`dav-${key}`, ...rest) },
    clock.now,
    deps.failureLimits,
  );

  /**
   * Counts a failed sign-in (per address, and per password id when it names one) and refuses:
   * 429 past a limit, else 401. Only a failure is ever refused by these counts (decision 310,
   * as decision 250): the right password is checked first and passes whatever strangers spent.
   */
  async function failed(ip: string, tokenId?: string): Promise<never> {
    // Past a limit already: refused from memory, no counter round trip.
    failures.refuseBlockedClient(ip);
    if (tokenId !== undefined) failures.refuseBlockedKey(tokenId);
    const throttled = await failures.failed(ip, tokenId).catch((error: unknown) => {
      deps.warn(error, 'counting a failed address-book sign-in failed');
      return undefined;
    });
    throw throttled ?? unauthorized(WRONG);
  }

  /** The user-id names the password's account: its username now, in any case or width, or its id. */
  function namesAccount(userId: string, account: { account_id: string; username_canonical: string }): boolean {
    return userId === account.account_id || deps.canonicalOf(userId) === account.username_canonical;
  }

  async function stampUse(id: string, accountId: string, lastUsedAt: number | null, userAgent: string | undefined): Promise<void> {
    const now = clock.now();
    if (lastUsedAt !== null && now - lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    const agent = clientInfo('', userAgent).userAgent;
    const stale = now - LAST_USED_RESOLUTION_MS;
    // The first sync is news to the owner's other devices: the page that set the phone up waits
    // for it (PRODUCT §9), so it is stamped with the signal. Later stamps are bookkeeping only.
    const stamp = lastUsedAt === null
      ? db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'dav-tokens.changed');
        await q.tokens.touch(id, now, agent, stale);
      })
      : db.direct.tokens.touch(id, now, agent, stale);
    // Bookkeeping: a failed stamp never refuses a request that authenticated.
    await stamp.catch((error: unknown) => deps.warn(error, 'stamping an address-book password\'s use failed'));
  }

  /** Makes a password for the account in `tx`; its secret is in the answer only. */
  async function issue(tx: Tx, account: { id: string; username: string }, rawLabel: string, client: LocatedClient): Promise<CreatedDavToken> {
    const label = requiredText(rawLabel, { path: '/label', max: DAV_TOKEN_LIMITS.labelLength });
    if (!label.ok) throw validationFailed([label.error]);
    const { id, password } = newPassword();
    const row: DavTokenRecord = {
      id,
      account_id: account.id,
      label: label.text,
      secret_hash: hasher.hash(password),
      created_at: clock.now(),
      last_used_at: null,
      last_user_agent: null,
    };
    const q = db.in(tx);
    // The signal takes the account row's lock first, so two concurrent creations cannot both count nine.
    await signal(tx, account.id, 'dav-tokens.changed');
    if ((await q.tokens.count(account.id)) >= DAV_TOKEN_LIMITS.perAccount) {
      throw refuse('dav_token_limit', `an account holds at most ${DAV_TOKEN_LIMITS.perAccount} address-book passwords; revoke one first`);
    }
    await q.tokens.insert(row);
    await securityLog.record(tx, account.id, 'dav_token_created', client);
    return {
      id,
      label: row.label,
      secret: password,
      username: account.username,
      server_url: `${deps.publicOrigin}/dav/`,
      created_at: new Date(row.created_at).toISOString(),
      schema_version: 1,
    };
  }

  return {
    /**
     * The account an `Authorization: Basic` header speaks for, read from the database on every
     * call, so a revoked password, a deleted or a locked account is refused at once. Refusals:
     * 401 dav_unauthorized (answer it with `WWW-Authenticate: Basic realm="VID", charset="UTF-8"`,
     * RFC 7617 §2.1), 429 too_many_failed_authentications with retryAfterSeconds for a failure
     * past the limits. The right password is never refused by them: wrong secrets sent for a
     * known id, from any address, slow down the guesser, not the phone (decision 310).
     * Neither the header nor the password is ever logged or put into a refusal.
     */
    async authenticate(authorization: string | undefined, client: { ip: string; userAgent?: string }): Promise<DavPrincipal> {
      // Not a failure: clients ask without credentials first and send them on the challenge (iOS does).
      if (authorization === undefined || authorization.trim() === '') throw unauthorized('sign in with your username and an address-book password');
      const credentials = basicCredentials(authorization);
      const tokenId = credentials && tokenIdOf(credentials.password);
      if (!credentials || !tokenId) return failed(client.ip);
      const row = await db.direct.tokens.findForAuthentication(tokenId);
      // An unknown id counts against the address only: made-up ids must not fill the counters.
      if (!row) return failed(client.ip);
      const key = hasher.keyOf(credentials.password, row.secret_hash);
      if (key === -1 || !namesAccount(credentials.userId, row)) return failed(client.ip, tokenId);
      // The right password of an account that may not sign in now: not a guess, not counted (PRODUCT §8, decision 090).
      if (row.deleted_at !== null || row.purged_at !== null || row.locked_at !== null) throw unauthorized('this account is not available');
      // Made under an older key of the ring: rewritten under the current one, so the rotation can retire the old key.
      if (key > 0) await db.direct.tokens.rehash(row.id, row.secret_hash, hasher.hash(credentials.password));
      await stampUse(row.id, row.account_id, row.last_used_at, client.userAgent);
      return { accountId: row.account_id, username: row.username, tokenId: row.id };
    },

    async create(auth: AuthContext, rawLabel: string, client: LocatedClient): Promise<CreatedDavToken> {
      return db.transaction((_q, tx) => issue(tx, { id: auth.account.id, username: auth.account.username }, rawLabel, client));
    },

    /**
     * Makes a password inside the caller's transaction (a setup link used on a phone, PRODUCT §9):
     * the same limit, signal and security-log entry as `create`, committed with the caller's change.
     */
    issue,

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<DavTokenView>> {
      return page((after, size) => db.direct.tokens.list(auth.account.id, after, size), cursor, limit, view);
    },

    async revoke(auth: AuthContext, id: string, client: LocatedClient): Promise<void> {
      await db.transaction(async (q, tx) => {
        await signal(tx, auth.account.id, 'dav-tokens.changed');
        // Another account's password answers like an unknown one (404, never 403).
        if (!(await q.tokens.remove(auth.account.id, id))) throw refuse('dav_token_not_found', 'you have no address-book password with this id');
        await securityLog.record(tx, auth.account.id, 'dav_token_revoked', client);
      });
    },

    /** Revokes every password of the account: one security-log entry each; nothing to revoke changes nothing. */
    async revokeAll(auth: AuthContext, client: LocatedClient): Promise<void> {
      if ((await db.direct.tokens.ids(auth.account.id)).length === 0) return;
      await db.transaction(async (q, tx) => {
        await signal(tx, auth.account.id, 'dav-tokens.changed');
        const revoked = await q.tokens.removeAll(auth.account.id);
        for (let n = 0; n < revoked.length; n++) await securityLog.record(tx, auth.account.id, 'dav_token_revoked', client);
      });
    },

    /** Every password's name and use, never its hash (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.tokens.list(accountId, after, limit), (row) => row)) {
        yield rows.map((row) => ({ id: row.id, label: row.label, created_at: new Date(row.created_at).toISOString(), last_used_at: iso(row.last_used_at), last_user_agent: row.last_user_agent }));
      }
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).tokens.removeAll(accountId);
    },
    /** Forgets the blocks whose window has ended (the periodic maintenance). */
    prune(now: number): void {
      failures.prune(now);
    },
  };
}

export type DavTokenService = ReturnType<typeof createDavTokenService>;
