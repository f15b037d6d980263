import { refuse } from '../../platform/errors.js';
import type { RepositoryOf } from '../../platform/store/store.js';
import type { usernameQueries } from './queries.js';
import { canonicalUsername, enforceUsername } from './rules.js';
import type { ReservedNames, UsernameKeys } from './rules.js';

export type UnavailableReason = 'invalid' | 'reserved' | 'confusable' | 'taken';

export interface UsernameCheck {
  username: string;
  canonical: string | null;
  available: boolean;
  reason?: UnavailableReason;
  detail?: string;
}

/**
 * A name a new account may take: its keys. The account stores and shows the canonical form, never
 * the name as typed (docs/decisions/007).
 */
export type AcceptedUsername = UsernameKeys;

const REFUSALS = {
  reserved: { code: 'username_reserved', detail: 'this username is reserved' },
  confusable: { code: 'username_confusable', detail: 'this username looks like one already taken' },
  taken: { code: 'username_taken', detail: 'this username is taken' },
} as const;

/** Username availability (spec: "reserves nothing"); uniqueness itself is the database's job. */
const CANONICAL_CACHE = 1000;

export function createUsernameService(deps: { db: RepositoryOf<{ names: typeof usernameQueries }>; reserved: ReservedNames }) {
  const canonicals = new Map<string, string | undefined>();
  /** The check's answer and, for a valid name, the keys it was checked on (the name is enforced once). */
  async function assess(username: string): Promise<{ result: UsernameCheck; keys?: UsernameKeys }> {
    const verdict = enforceUsername(username);
    if (!verdict.ok) return { result: { username, canonical: null, available: false, reason: 'invalid', detail: verdict.detail } };
    const { ok: _valid, ...keys } = verdict;
    const { canonical } = keys;
    if (deps.reserved.isReserved(keys)) return { result: { username, canonical, available: false, reason: 'reserved' }, keys };
    const clash = await deps.db.direct.names.findClash(keys);
    if (clash) return { result: { username, canonical, available: false, reason: clash }, keys };
    return { result: { username, canonical, available: true }, keys };
  }

  return {
    async check(username: string): Promise<UsernameCheck> {
      return (await assess(username)).result;
    },
    /** The same rules as check, as a refusal with a stable code. */
    async requireAvailable(username: string): Promise<AcceptedUsername> {
      const { result, keys } = await assess(username);
      if (result.available && keys) return keys;
      if (result.reason === 'invalid' || !result.reason) {
        const detail = result.detail ?? 'invalid username';
        throw refuse('username_invalid', { detail, errors: [{ path: '/username', code: 'username_invalid', message: detail }] });
      }
      const refusal = REFUSALS[result.reason];
      throw refuse(refusal.code, refusal.detail);
    },
    /** The refusal for a lost race: the clash the winning row shows, or the unique index that refused. */
    async raceRefusal(accepted: AcceptedUsername, constraint: string) {
      const clash = (await deps.db.direct.names.findClash(accepted)) ?? constraint;
      const reason = clash === 'confusable' || clash.includes('skeleton') ? 'confusable' : 'taken';
      return refuse(REFUSALS[reason].code, REFUSALS[reason].detail);
    },
    /**
     * The account a typed name belongs to, by its enforced form ("ＡＤＡ" finds "ada"). Public
     * cards ask this on every request: the last thousand answers are kept (a pure function).
     */
    canonicalOf(username: string): string | undefined {
      if (canonicals.has(username)) return canonicals.get(username);
      const verdict = canonicalUsername(username);
      const canonical = verdict.ok ? verdict.canonical : undefined;
      // Only names that could exist are kept: junk requests cannot fill the cache with long keys.
      if (!canonical) return undefined;
      if (canonicals.size >= CANONICAL_CACHE) canonicals.delete(canonicals.keys().next().value as string);
      canonicals.set(username, canonical);
      return canonical;
    },
  };
}

export type UsernameService = ReturnType<typeof createUsernameService>;
