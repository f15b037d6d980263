import { normalizeRecoveryKey, recoveryKeyVerifier, verifiersMatch } from '../../platform/crypto/recovery-key.js';
import type { StoreQueries } from '../../platform/store/store.js';
import type { TotpService } from '../methods/totp.js';

/**
 * What replaces a trusted device's approval when there is none (spec rule 2, PRODUCT §1): a
 * TOTP code when the account has an active authenticator, else the recovery key.
 */
export function createJoinFactors(deps: { totp: TotpService }) {
  return {
    async verify(tx: StoreQueries, accountId: string, offered: { totpCode?: string; recoveryKey?: string }): Promise<boolean> {
      if ((await tx.totp.countActive(accountId)) > 0) {
        return offered.totpCode !== undefined && deps.totp.verifyAny(tx, accountId, offered.totpCode);
      }
      const stored = await tx.recoveryKeys.find(accountId);
      const typed = offered.recoveryKey === undefined ? undefined : normalizeRecoveryKey(offered.recoveryKey);
      return !!stored && !!typed && verifiersMatch(recoveryKeyVerifier(typed), stored.verifier);
    },
  };
}

export type JoinFactors = ReturnType<typeof createJoinFactors>;
