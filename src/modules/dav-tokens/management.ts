import type { AuthContext } from '../../platform/caller.js';
import { deviceLabel } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { Tx } from '../../platform/store/store.js';
import { requiredText } from '../../platform/text.js';
import { newPassword, passwordHasher } from './passwords.js';
import type { DavTokenRecord } from './queries.js';
import { DAV_TOKEN_LIMITS } from './schemas.js';
import { iso } from './tokens.js';
import type { CreatedDavToken, DavTokenDeps, DavTokenView } from './tokens.js';

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

/** Managing an account's address-book passwords (/dav-tokens): making, listing, revoking, the export and the purge. */
export function createDavTokenManagement(deps: Pick<DavTokenDeps, 'db' | 'clock' | 'tokenKeys' | 'publicOrigin' | 'securityLog'>) {
  const { db, clock, securityLog } = deps;
  const hasher = passwordHasher(deps.tokenKeys);

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
  };
}
