import { createHmac, randomInt } from 'node:crypto';
import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { JOIN_CODE_TTL_MS, trustedOnly } from './attempts.js';
import type { CodeState, JoinDeps } from './attempts.js';
import type { JoinCodeRecord } from './queries.js';

const hashUnder = (key: Buffer, accountId: string, code: string) => createHmac('sha256', key).update(`${accountId}:${code}`).digest('base64url');

/** The hash a new code is kept under: the ring's current key. */
export const codeHash = (keys: readonly Buffer[], accountId: string, code: string) => hashUnder(keys[0]!, accountId, code);

// Codes live 2 minutes and are never re-hashed: one issued under the previous key still redeems.
export const codeHashes = (keys: readonly Buffer[], accountId: string, code: string) => keys.map((key) => hashUnder(key, accountId, code));

function codeStateOf(row: JoinCodeRecord, now: number): CodeState['status'] {
  if (row.used_at !== null) return 'used';
  if (row.voided_at !== null) return 'voided';
  return row.expires_at <= now ? 'expired' : 'active';
}

/** A trusted session issuing a code, and reading what became of it. */
export function createJoinCodes(deps: Pick<JoinDeps, 'db' | 'clock' | 'codeKeys'>) {
  const { clock } = deps;
  const direct = deps.db.direct;

  return {
    async issue(auth: AuthContext): Promise<{ code: string; expires_at: string; schema_version: 1 }> {
      if (!auth.trusted) throw trustedOnly();
      const now = clock.now();
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await direct.join.replaceCode({
        id: newId('join'),
        account_id: auth.account.id,
        session_id: auth.sessionId,
        code_hash: codeHash(deps.codeKeys, auth.account.id, code),
        created_at: now,
        expires_at: now + JOIN_CODE_TTL_MS,
      });
      return { code, expires_at: new Date(now + JOIN_CODE_TTL_MS).toISOString(), schema_version: 1 };
    },

    /** What became of the code this session issued last: still active, used, expired, or voided by wrong guesses. */
    async codeState(auth: AuthContext): Promise<CodeState> {
      if (!auth.trusted) throw trustedOnly();
      const row = await direct.join.latestCodeOf(auth.sessionId);
      if (!row) throw refuse('join_code_not_found', 'this session has not issued a code; POST /auth/join/issue makes one');
      return { status: codeStateOf(row, clock.now()), wrong_guesses: Number(row.failures), expires_at: new Date(row.expires_at).toISOString(), schema_version: 1 };
    },
  };
}
