import { createJoinAttempts } from './attempts.js';
import type { JoinDeps } from './attempts.js';
import { createJoinCodes } from './codes.js';
import { createJoinDeciding } from './deciding.js';
import { createJoinFinishing } from './finishing.js';
import { createJoinRedeeming } from './redeeming.js';

export { JOIN_ATTEMPT_TTL_MS, JOIN_CODE_TTL_MS, WRONG_CODES_BEFORE_VOID } from './attempts.js';
export type { AttemptView, CodeState, JoinDeps, PendingAttempt } from './attempts.js';
export type { JoinStatus } from './states.js';

/**
 * Cross-device join (spec: States and transitions, join attempt). A code alone never logs in:
 * redeeming it only creates an attempt that a trusted device, or a factor on the no-trusted-
 * device path, must approve (rule 1, 2). Its parts: issuing codes (codes.ts), redeeming and
 * starting (redeeming.ts), deciding (deciding.ts) and finishing (finishing.ts), over the
 * attempts they share (attempts.ts).
 */
export function createJoinService(deps: JoinDeps) {
  const attempts = createJoinAttempts(deps);
  const codes = createJoinCodes(deps);
  const redeeming = createJoinRedeeming(deps, attempts);
  const deciding = createJoinDeciding(deps, attempts);
  const finishing = createJoinFinishing(deps, attempts);
  return {
    issue: codes.issue,
    redeem: redeeming.redeem,
    start: redeeming.start,
    status: redeeming.status,
    pending: deciding.pending,
    codeState: codes.codeState,
    approve: deciding.approve,
    deny: deciding.deny,
    approveWithFactor: deciding.approveWithFactor,
    registerOptions: finishing.registerOptions,
    finish: finishing.finish,
  };
}

export type JoinService = ReturnType<typeof createJoinService>;
