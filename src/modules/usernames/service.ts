import { enforceUsername } from './rules.js';
import type { ReservedNames } from './rules.js';
import { AppError } from '../../platform/errors.js';
import type { Store } from '../../platform/store/store.js';

export type UnavailableReason = 'invalid' | 'reserved' | 'confusable' | 'taken';

export interface UsernameCheck {
  username: string;
  canonical: string | null;
  available: boolean;
  reason?: UnavailableReason;
  detail?: string;
}

export interface AcceptedUsername {
  username: string;
  canonical: string;
  skeleton: string;
}

const REFUSALS: Record<Exclude<UnavailableReason, 'invalid'>, { code: string; detail: string }> = {
  reserved: { code: 'username_reserved', detail: 'this username is reserved' },
  confusable: { code: 'username_confusable', detail: 'this username looks like one already taken' },
  taken: { code: 'username_taken', detail: 'this username is taken' },
};

/** Username availability (spec: "reserves nothing"); uniqueness itself is the database's job. */
export function createUsernameService(deps: { store: Store; reserved: ReservedNames }) {
  async function check(username: string): Promise<UsernameCheck> {
    const verdict = enforceUsername(username);
    if (!verdict.ok) return { username, canonical: null, available: false, reason: 'invalid', detail: verdict.detail };
    const { canonical, skeleton } = verdict;
    if (deps.reserved.isReserved(canonical, skeleton)) return { username, canonical, available: false, reason: 'reserved' };
    const clash = await deps.store.accounts.findClash(canonical, skeleton);
    if (clash) return { username, canonical, available: false, reason: clash };
    return { username, canonical, available: true };
  }

  return {
    check,
    /** The same rules as check, as a refusal with a stable code. */
    async requireAvailable(username: string): Promise<AcceptedUsername> {
      const result = await check(username);
      if (result.available && result.canonical) {
        const verdict = enforceUsername(username);
        if (verdict.ok) return { username, canonical: verdict.canonical, skeleton: verdict.skeleton };
      }
      if (result.reason === 'invalid' || !result.reason) {
        throw new AppError(400, 'username_invalid', 'Invalid username', {
          detail: result.detail ?? 'invalid username',
          errors: [{ path: '/username', code: 'username_invalid', message: result.detail ?? 'invalid username' }],
        });
      }
      const refusal = REFUSALS[result.reason];
      throw new AppError(409, refusal.code, 'Username unavailable', { detail: refusal.detail });
    },
    /** The refusal for a lost race: 'taken'/'confusable', or the unique index that refused. */
    refusalFor(clashOrConstraint: string): AppError {
      const reason = clashOrConstraint === 'confusable' || clashOrConstraint.includes('skeleton') ? 'confusable' : 'taken';
      return new AppError(409, REFUSALS[reason].code, 'Username unavailable', { detail: REFUSALS[reason].detail });
    },
  };
}

export type UsernameService = ReturnType<typeof createUsernameService>;
