import type { Tx } from '../../platform/store/store.js';
import type { TotpService } from '../methods/totp.js';
import type { RecoveryService } from '../recovery/service.js';

/**
 * What replaces a trusted device's approval when there is none (spec rule 2, PRODUCT §1): a
 * TOTP code when the account has an active authenticator, else the recovery key.
 */
export function createJoinFactors(deps: { totp: TotpService; recovery: RecoveryService }) {
  return {
    async verify(tx: Tx, accountId: string, offered: { totpCode?: string; recoveryKey?: string }): Promise<boolean> {
      if (await deps.totp.hasActive(tx, accountId)) {
        return offered.totpCode !== undefined && deps.totp.verifyAny(tx, accountId, offered.totpCode);
      }
      return deps.recovery.matches(tx, accountId, offered.recoveryKey);
    },
  };
}

export type JoinFactors = ReturnType<typeof createJoinFactors>;
