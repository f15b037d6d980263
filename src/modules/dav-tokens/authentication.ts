import { clientInfo } from '../../platform/client-info.js';
import { refuse } from '../../platform/errors.js';
import { createAuthFailures } from '../../platform/limits/auth-failures.js';
import { signal } from '../../platform/signals/signal.js';
import { basicCredentials, passwordHasher, tokenIdOf } from './passwords.js';
import { LAST_USED_RESOLUTION_MS } from './tokens.js';
import type { DavPrincipal, DavTokenDeps } from './tokens.js';

const unauthorized = (detail: string) => refuse('dav_unauthorized', detail);
/** One detail for every wrong credential, so a refusal never says which part was wrong. */
const WRONG = 'the user name or address-book password is wrong, or the password was revoked';

/** Signing an address book in: HTTP Basic (RFC 7617) checked against the stored passwords, with its failure counters. */
export function createDavAuthentication(deps: Pick<DavTokenDeps, 'db' | 'clock' | 'tokenKeys' | 'canonicalOf' | 'limiter' | 'failureLimits' | 'warn'>) {
  const { db, clock } = deps;
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

    /** Forgets the blocks whose window has ended (the periodic maintenance). */
    prune(now: number): void {
      failures.prune(now);
    },
  };
}
