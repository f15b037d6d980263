import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { AuthContext } from '../../platform/caller.js';
import { deviceName } from '../../platform/client-info.js';
import type { LocatedClient } from '../../platform/client-info.js';
import type { Clock } from '../../platform/clock.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { keysetPages } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { requiredText } from '../../platform/text.js';
import type { CreatedDavToken, DavTokenService } from '../dav-tokens/service.js';
import { DAV_TOKEN_LIMITS } from '../dav-tokens/schemas.js';
import { handover } from './handover.js';
import type { Handover } from './handover.js';
import type { DavSetupLinkRecord, davSetupLinkQueries } from './queries.js';

/** How long a setup link works (PRODUCT §9: ten minutes). */
export const SETUP_LINK_TTL_MS = 10 * 60_000;
/** Ended links are kept this long for their page to say "used" or "expired", then forgotten. */
const KEEP_ENDED_MS = 24 * 60 * 60_000;

/** Crockford's Base32 alphabet: no I, L, O or U, so a code read aloud or off a screen is not misread. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;
/** 192 random bits, URL-safe: the link's token. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** The creation's answer: the link and code, shown only here. */
export interface CreatedSetupLink {
  id: string;
  label: string | null;
  url: string;
  code: string;
  expires_at: string;
  created_at: string;
  schema_version: 1;
}

/** A link as the page that showed it follows it: waiting for a phone, used by one, or expired. */
export interface SetupLinkView {
  id: string;
  label: string | null;
  state: 'waiting' | 'used' | 'expired';
  expires_at: string;
  used_at: string | null;
  dav_token_id: string | null;
  created_at: string;
  schema_version: 1;
}

/** What a phone receives: the new password, and the ways to hand it to the phone's own apps. */
export type RedeemedSetupLink = CreatedDavToken & { davx5_url: string; android_intent_url: string };

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const gone = () => refuse('setup_link_gone', 'this setup link was used or has expired; make a new one on the device that is signed in');

/** A code as people type it: any case, with or without the dash or spaces, I/L read as 1 and O as 0. */
export function normalizeCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c)) ? code : undefined;
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** "K7QX-M2PD": two groups of four, as the screen shows it. */
export const displayCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * Setup links (PRODUCT §9, decision 300): the signed-in device makes one; the phone opens it
 * (or types its code) and receives a new address-book password, handed to its own Contacts
 * without typing. Opening the page never uses the link: only the phone's explicit request does,
 * so a messenger's link preview or a browser's prefetch cannot spend it.
 */
export function createDavSetupLinkService(deps: {
  db: RepositoryOf<{ links: typeof davSetupLinkQueries }>;
  clock: Clock;
  /** Keys the token and code hashes, the current one first (decision 110): a lookup tries each. */
  keys: readonly Buffer[];
  publicOrigin: string;
  davTokens: Pick<DavTokenService, 'issue'>;
}) {
  const { db, clock } = deps;
  const hashesOf = (kind: 'token' | 'code', value: string) => deps.keys.map((key) => createHmac('sha256', key).update(`${kind}:${value}`).digest('base64url'));
  const hashOf = (kind: 'token' | 'code', value: string) => hashesOf(kind, value)[0]!;

  function view(row: DavSetupLinkRecord): SetupLinkView {
    const state = row.used_at !== null ? 'used' : row.expires_at <= clock.now() ? 'expired' : 'waiting';
    return {
      id: row.id,
      label: row.label,
      state,
      expires_at: new Date(row.expires_at).toISOString(),
      used_at: iso(row.used_at),
      dav_token_id: row.dav_token_id,
      created_at: new Date(row.created_at).toISOString(),
      schema_version: 1,
    };
  }

  /** The link a token or code names, when it may still be used: anything else answers the same 410. */
  async function find(secret: { token?: string; code?: string }) {
    let row;
    if (secret.token !== undefined) {
      if (!TOKEN.test(secret.token)) throw gone();
      row = await db.direct.links.findByHash('token_hash', hashesOf('token', secret.token));
    } else {
      const code = normalizeCode(secret.code ?? '');
      if (!code) throw validationFailed([{ path: '/code', code: 'invalid_format', message: 'a code is eight letters and digits, such as K7QX-M2PD' }]);
      row = await db.direct.links.findByHash('code_hash', hashesOf('code', code));
    }
    // A used, expired or unknown link, and one whose account may not sign in now, look alike.
    if (!row || row.used_at !== null || row.expires_at <= clock.now()) throw gone();
    if (row.deleted_at !== null || row.purged_at !== null || row.locked_at !== null) throw gone();
    return row;
  }

  return {
    async create(auth: AuthContext, rawLabel: string | undefined): Promise<CreatedSetupLink> {
      let label: string | null = null;
      if (rawLabel !== undefined) {
        const checked = requiredText(rawLabel, { path: '/label', max: DAV_TOKEN_LIMITS.labelLength });
        if (!checked.ok) throw validationFailed([checked.error]);
        label = checked.text;
      }
      const token = randomBytes(24).toString('base64url');
      const code = newCode();
      const now = clock.now();
      const row: DavSetupLinkRecord = {
        id: newId('dsl'),
        account_id: auth.account.id,
        label,
        token_hash: hashOf('token', token),
        code_hash: hashOf('code', code),
        created_at: now,
        expires_at: now + SETUP_LINK_TTL_MS,
        used_at: null,
        dav_token_id: null,
      };
      // In a transaction, so a keyed request's recorded answer commits with the link (decision 002).
      await db.transaction((q) => q.links.insert(row));
      return {
        id: row.id,
        label,
        // The token rides in the fragment, which no browser sends (RFC 3986 §3.5), as share links do (decision 262).
        url: `${deps.publicOrigin}/p/#${token}`,
        code: displayCode(code),
        expires_at: new Date(row.expires_at).toISOString(),
        created_at: new Date(now).toISOString(),
        schema_version: 1,
      };
    },

    async get(auth: AuthContext, id: string): Promise<SetupLinkView> {
      const row = await db.direct.links.get(auth.account.id, id);
      if (!row) throw refuse('setup_link_not_found', 'you have no setup link with this id');
      return view(row);
    },

    /** Withdraws a link before a phone used it (the page that showed its QR code was closed). */
    async cancel(auth: AuthContext, id: string): Promise<void> {
      const removed = await db.transaction((q) => q.links.remove(auth.account.id, id));
      if (!removed) throw refuse('setup_link_not_found', 'you have no setup link with this id');
    },

    /**
     * Uses a link, once: a new address-book password for the phone that opened it, made and
     * marked in one transaction, so a link is never used without its password nor twice.
     */
    async redeem(secret: { token?: string; code?: string }, client: LocatedClient): Promise<{ created: RedeemedSetupLink; accountId: string; handover: Handover }> {
      const link = await find(secret);
      const label = link.label ?? deviceName(client.userAgent ?? '') ?? 'Phone';
      const created = await db.transaction(async (q, tx) => {
        const made = await deps.davTokens.issue(tx, { id: link.account_id, username: link.username }, label, client);
        if (!(await q.links.use(link.id, clock.now(), made.id))) throw gone();
        return made;
      });
      const ways = handover({ serverUrl: created.server_url, accountId: link.account_id, password: created.secret, tokenId: created.id, label: created.label });
      return { created: { ...created, davx5_url: ways.davx5Url, android_intent_url: ways.androidIntentUrl }, accountId: link.account_id, handover: ways };
    },

    /** Every link's dates, never its token or code (the account export). */
    async *exportPages(accountId: string): AsyncIterable<object[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.links.list(accountId, after, limit), (row) => row)) {
        yield rows.map((row) => ({ id: row.id, label: row.label, created_at: new Date(row.created_at).toISOString(), expires_at: new Date(row.expires_at).toISOString(), used_at: iso(row.used_at), dav_token_id: row.dav_token_id }));
      }
    },
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).links.removeAll(accountId);
    },
    async prune(now: number): Promise<void> {
      await db.direct.links.removeEnded(now - KEEP_ENDED_MS);
    },
  };
}

export type DavSetupLinkService = ReturnType<typeof createDavSetupLinkService>;
