/**
 * The join attempt's state machine (spec: States and transitions, join attempt; decision 030), as
 * a table: each action names who takes it, the states it leaves, the state it reaches and the
 * time it stamps. The service applies a row with one conditional update, which also requires the
 * attempt to be unexpired. Redeem and start create attempts `awaiting_approval`.
 * `expired` is not stored: an attempt in an expiring state reads as expired once its 10 minutes
 * are over; `denied` and `finished` are final and never expire.
 */
export type StoredJoinStatus = 'awaiting_approval' | 'approved' | 'denied' | 'finished';

export type JoinStatus = StoredJoinStatus | 'expired';

/**
 * approve: a trusted device of the account, and only for an attempt that redeemed a code (one
 * started without a code is approved by its factor alone: device prompts would otherwise be
 * anyone's to send); approve_with_factor: the redeemer, with a factor (rule 2); deny: a trusted
 * device; finish: the redeemer, which opens the session.
 */
export type JoinAction = 'approve' | 'approve_with_factor' | 'deny' | 'finish';

export const TRANSITIONS = {
  approve: { by: 'trusted device', via: ['code'], from: ['awaiting_approval'], to: 'approved', stamps: 'decided_at' },
  approve_with_factor: { by: 'redeemer', via: ['code', 'factor'], from: ['awaiting_approval'], to: 'approved', stamps: 'decided_at' },
  deny: { by: 'trusted device', via: ['code', 'factor'], from: ['awaiting_approval'], to: 'denied', stamps: 'decided_at' },
  finish: { by: 'redeemer', via: ['code', 'factor'], from: ['approved'], to: 'finished', stamps: 'finished_at' },
} as const satisfies Record<
  JoinAction,
  { by: 'trusted device' | 'redeemer'; via: readonly ('code' | 'factor')[]; from: readonly StoredJoinStatus[]; to: StoredJoinStatus; stamps: 'decided_at' | 'finished_at' }
>;

/** The states an attempt leaves for `expired` when its time is up. */
export const EXPIRING: readonly StoredJoinStatus[] = ['awaiting_approval', 'approved'];

/** An attempt's state as the API shows it at `now`. */
export function statusOf(row: { status: string; expires_at: number }, now: number): JoinStatus {
  if ((EXPIRING as readonly string[]).includes(row.status) && row.expires_at <= now) return 'expired';
  return row.status as JoinStatus;
}

/** Whether the table lets `action` leave `status` (never `expired`: no action leaves it). */
export function allows(action: JoinAction, status: JoinStatus): boolean {
  return (TRANSITIONS[action].from as readonly JoinStatus[]).includes(status);
}
