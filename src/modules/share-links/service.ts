import { createHmac, randomBytes } from 'node:crypto';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secret-box.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { ProfileRemoval } from '../profiles/service.js';
import type { SubscriptionService } from '../contacts/subscriptions.js';
import type { ShareLinkRecord, shareLinkQueries } from './queries.js';

export interface ShareLinkView {
  id: string;
  label: string | null;
  token: string;
  url: string;
  profile_id: string;
  expires_at: string | null;
  max_uses: number | null;
  uses: number;
  auto_approve: boolean;
  /** active, or why it no longer works. */
  state: 'active' | 'expired' | 'used_up';
  created_at: string;
  schema_version: 1;
}

export interface ResolvedShareLink {
  owner: { username: string; display_name: string | null };
  auto_approve: boolean;
  expires_at: string | null;
  schema_version: 1;
}

/** What link tokens are sealed with (associated data); the rotation re-seals them under it. */
export const SHARE_LINK_SEAL_PURPOSE = 'share-link-token';
const SEAL = SHARE_LINK_SEAL_PURPOSE;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
/** 192 random bits (PRODUCT §6: at least 128), URL-safe. */
const newToken = () => randomBytes(24).toString('base64url');
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

const gone = () => refuse('share_link_gone', 'this link was revoked, has expired or has been used up; ask for a new one');
const unknown = () => refuse('share_link_not_found', 'no share link has this token');

/** Where a link stands at `now`: the first that holds of revoked, expired, used up. */
function stateOf(link: Pick<ShareLinkRecord, 'expires_at' | 'max_uses' | 'uses' | 'revoked_at'>, now: number): ShareLinkView['state'] | 'revoked' {
  if (link.revoked_at !== null) return 'revoked';
  if (link.expires_at !== null && link.expires_at <= now) return 'expired';
  if (link.max_uses !== null && link.uses >= link.max_uses) return 'used_up';
  return 'active';
}

/** A link as the account export holds it: everything but its token. */
const exported = (link: ShareLinkRecord, now: number) => ({
  id: link.id,
  label: link.label,
  profile_id: link.profile_id,
  expires_at: iso(link.expires_at),
  max_uses: link.max_uses,
  uses: link.uses,
  auto_approve: link.auto_approve === 1,
  state: stateOf(link, now),
  created_at: new Date(link.created_at).toISOString(),
  revoked_at: iso(link.revoked_at),
});

/**
 * Share links (PRODUCT §6): a token that lets someone subscribe to one profile, active at once
 * with auto-approve. The token is found by a keyed hash and kept sealed; it never reaches logs
 * (the request logger drops query strings and the old /s/<token> path). Its page's URL carries it
 * in the fragment, /s/#<token>, which a browser never sends (RFC 3986 §3.5): no proxy's or
 * server's access log, and no Referer, ever sees it.
 */
export function createShareLinkService(deps: {
  db: RepositoryOf<{ links: typeof shareLinkQueries }>;
  clock: Clock;
  box: SecretBox;
  /** Keys the token hashes, derived from each key of the ring, the current one first (decision 110). */
  tokenKeys: readonly Buffer[];
  /** Where the web app answers /s/#<token> (and links made before as /s/<token>). */
  publicOrigin: string;
  subscriptions: SubscriptionService;
  /** Whether the owner has a profile, held from its delete until the link is stored (the profiles service). */
  holdsProfile: (tx: Tx, ownerId: string, profileId: string) => Promise<boolean>;
}) {
  const { db, clock, box } = deps;
  const hashUnder = (key: Buffer, token: string) => createHmac('sha256', key).update(token).digest('base64url');
  /** New links are hashed under the current key; a lookup tries every key of the ring (a rotation re-hashes). */
  const hashOf = (token: string) => hashUnder(deps.tokenKeys[0]!, token);
  const hashesOf = (token: string) => deps.tokenKeys.map((key) => hashUnder(key, token));

  function view(link: ShareLinkRecord): ShareLinkView {
    const token = box.open(link.token_sealed, SEAL);
    return {
      id: link.id,
      label: link.label,
      token,
      url: `${deps.publicOrigin}/s/#${token}`,
      profile_id: link.profile_id,
      expires_at: iso(link.expires_at),
      max_uses: link.max_uses,
      uses: link.uses,
      auto_approve: link.auto_approve === 1,
      state: stateOf(link, clock.now()) as ShareLinkView['state'],
      created_at: new Date(link.created_at).toISOString(),
      schema_version: 1,
    };
  }

  async function live(token: string) {
    const link = TOKEN.test(token) ? await db.direct.links.findByHash(hashesOf(token)) : undefined;
    if (!link) throw unknown();
    // PRODUCT §8: a deleted account's links stop working (and work again if it is restored); so do a locked one's (decision 090).
    if (stateOf(link, clock.now()) !== 'active' || link.owner_deleted_at !== null || link.owner_locked_at !== null) throw gone();
    return link;
  }

  return {
    /** The token's lookup hash under the current key (the rotation recomputes stored ones). */
    tokenHash: hashOf,
    async create(auth: AuthContext, input: { profile_id: string; label?: string | null; expires_at?: string | null; max_uses?: number | null; auto_approve: boolean }): Promise<ShareLinkView> {
      const now = clock.now();
      const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null;
      if (expiresAt !== null && !(expiresAt > now)) {
        throw refuse('validation_failed', { detail: 'expires_at must be in the future', errors: [{ path: '/expires_at', code: 'in_the_past', message: 'must be in the future' }] });
      }
      const token = newToken();
      const link: ShareLinkRecord = {
        id: newId('shl'),
        owner_id: auth.account.id,
        profile_id: input.profile_id,
        token_hash: hashOf(token),
        token_sealed: box.seal(token, SEAL),
        expires_at: expiresAt,
        max_uses: input.max_uses ?? null,
        uses: 0,
        auto_approve: input.auto_approve ? 1 : 0,
        created_at: now,
        revoked_at: null,
        label: input.label?.trim() || null,
      };
      await db.transaction(async (q, tx) => {
        // The account's lock (the signal) and then the profile's, in the order a profile's delete
        // takes them: a delete that came first has committed and the profile is gone (404); one
        // that comes later waits, then moves this link along.
        await signal(tx, auth.account.id, 'share_links.changed');
        // Another account's profile answers like an unknown one (404, never 403).
        if (!(await deps.holdsProfile(tx, auth.account.id, input.profile_id))) throw refuse('profile_not_found', 'you have no profile with this id');
        await q.links.insert(link);
      });
      return view(link);
    },

    /** Every link, revoked ones too, without its token (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.links.all(accountId, after, limit), (row) => row)) {
        yield rows.map((link) => exported(link, clock.now()));
      }
    },
    /** The purge (PRODUCT §8). */
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).links.removeAll(accountId);
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<ShareLinkView>> {
      return page((after, size) => db.direct.links.list(auth.account.id, after, size), cursor, limit, view);
    },

    async revoke(auth: AuthContext, id: string): Promise<void> {
      await db.transaction(async (q, tx) => {
        if (!(await q.links.revoke(auth.account.id, id, clock.now()))) throw refuse('share_link_not_found', 'you have no share link with this id');
        await signal(tx, auth.account.id, 'share_links.changed');
      });
    },

    /**
     * What a visitor holding the token may learn before subscribing: whose link it is, whether it
     * approves at once, until when. Never which profile: its name is the owner's private word for
     * an audience (PRODUCT §6), so "nobody learns which profile they get" holds before too.
     */
    async resolve(token: string): Promise<ResolvedShareLink> {
      const link = await live(token);
      return {
        owner: { username: link.username, display_name: link.display_name },
        auto_approve: link.auto_approve === 1,
        expires_at: iso(link.expires_at),
        schema_version: 1,
      };
    },

    /** Subscribes the caller through a link: one use counted atomically, with the subscription. Returns its id. */
    async redeem(auth: AuthContext, token: string): Promise<string> {
      const found = await live(token);
      return db.transaction(async (q, tx) => {
        // The owner's lock (the signal) first, as a profile's delete takes it first: the link's
        // profile read below is the one after any delete that moved the link (or dropped it).
        await signal(tx, found.owner_id, 'share_links.changed');
        const link = await q.links.takeUse(found.id, clock.now());
        if (!link) throw gone();
        return deps.subscriptions.subscribe(tx, auth, { ownerId: link.owner_id, link: { id: link.id, profileId: link.profile_id, autoApprove: link.auto_approve === 1, label: link.label } });
      });
    },

    /** A profile is going: with move_to its links follow; otherwise they go with it (cascade). */
    async profileRemoving(tx: Tx, removal: ProfileRemoval): Promise<void> {
      if (removal.moveTo) await db.in(tx).links.moveProfile(removal.accountId, removal.profileId, removal.moveTo);
    },
  };
}

export type ShareLinkService = ReturnType<typeof createShareLinkService>;
