import type { AuthContext } from '../../platform/caller.js';
import { isValidCountry } from '../../platform/countries.js';
import { refuse, validationFailed } from '../../platform/errors.js';
import type { FieldError } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { signal } from '../../platform/signals/signal.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { meQueries } from './queries.js';

/** The identity as GET /me shows it (PRODUCT §2). */
export interface MeView {
  id: string;
  username: string;
  display_name: string | null;
  locale: string | null;
  default_country: string | null;
  region: string;
  created_at: string;
  status: 'active' | 'deleted';
  deleted_at: string | null;
  purge_at: string | null;
  version: number;
  schema_version: 1;
}

const isoOrNull = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export function meView(account: AccountRecord): MeView {
  return {
    id: account.id,
    username: account.username,
    display_name: account.display_name,
    locale: account.locale,
    default_country: account.default_country,
    region: account.region,
    created_at: new Date(account.created_at).toISOString(),
    status: account.deleted_at === null ? 'active' : 'deleted',
    deleted_at: isoOrNull(account.deleted_at),
    purge_at: isoOrNull(account.purge_at),
    version: account.version,
    schema_version: 1,
  };
}

export interface MePatch {
  display_name?: string | null;
  locale?: string | null;
  default_country?: string | null;
}

// Control characters and bidi overrides have no place in a name shown to other people.
const UNSAFE_TEXT = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
// A name must show something: letters, digits, punctuation or symbols (not only invisible marks).
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

function validate(patch: MePatch): MePatch {
  const errors: FieldError[] = [];
  const out: MePatch = {};
  if (patch.display_name !== undefined) {
    const name = patch.display_name === null ? null : patch.display_name.normalize('NFC').trim();
    if (name !== null && (!VISIBLE.test(name) || UNSAFE_TEXT.test(name))) {
      errors.push({ path: '/display_name', code: 'invalid_display_name', message: 'a display name needs visible characters and no control characters' });
    }
    out.display_name = name;
  }
  if (patch.locale !== undefined) {
    const locale = patch.locale === null ? null : canonicalLocale(patch.locale);
    if (locale === undefined) errors.push({ path: '/locale', code: 'invalid_locale', message: 'not a BCP 47 language tag' });
    out.locale = locale ?? null;
  }
  if (patch.default_country !== undefined) {
    const country = patch.default_country === null ? null : patch.default_country.toUpperCase();
    if (country !== null && !isValidCountry(country)) {
      errors.push({ path: '/default_country', code: 'invalid_country', message: 'not an ISO 3166-1 alpha-2 country code' });
    }
    out.default_country = country;
  }
  if (errors.length) throw validationFailed(errors, errors.map((e) => e.message).join('; '));
  return out;
}

export function createMeService(deps: { db: RepositoryOf<{ me: typeof meQueries }> }) {
  /** The identity changed, in its transaction (cards show the display name). */
  const changed = txHook<{ accountId: string }>();
  return {
    view: meView,
    onChange: changed.subscribe,
    get(auth: AuthContext): MeView {
      return meView(auth.account);
    },
    /** The identity's version as committed now (If-Match: * is evaluated against it). */
    currentVersion(auth: AuthContext): Promise<number | undefined> {
      return deps.db.direct.me.version(auth.account.id);
    },
    /** PATCH /me with If-Match: a compare-and-swap on the account's version. */
    async update(auth: AuthContext, expectedVersion: number, patch: MePatch): Promise<MeView> {
      const changes = validate(patch);
      const updated = await deps.db.transaction(async (q, tx) => {
        const row = await q.me.update(auth.account.id, expectedVersion, changes);
        if (row) {
          await signal(tx, row.id, 'me.changed');
          await changed.run(tx, { accountId: row.id });
        }
        return row;
      });
      if (!updated) throw refuse('version_mismatch', 'the identity changed since you read it; fetch it again');
      return meView(updated);
    },
  };
}

export type MeService = ReturnType<typeof createMeService>;
