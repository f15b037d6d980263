/**
 * The subscription state machine (PRODUCT §4), as a table: each action names the side that
 * may take it, the states it leaves and the state it reaches. The service applies a row with
 * one conditional update; the docs' state diagram and the refused-transition tests read it.
 * `unavailable` is not stored: a subscriber sees it while the owner's account is deleted.
 */
export type SubscriptionStatus = 'pending' | 'active' | 'denied' | 'revoked' | 'ended';

export type Action = 'approve' | 'deny' | 'move' | 'revoke' | 'unsubscribe';

export const TRANSITIONS = {
  approve: { by: 'owner', from: ['pending'], to: 'active' },
  deny: { by: 'owner', from: ['pending'], to: 'denied' },
  move: { by: 'owner', from: ['active'], to: 'active' },
  revoke: { by: 'owner', from: ['active'], to: 'revoked' },
  unsubscribe: { by: 'subscriber', from: ['pending', 'active'], to: 'ended' },
} as const satisfies Record<Action, { by: 'owner' | 'subscriber'; from: readonly SubscriptionStatus[]; to: SubscriptionStatus }>;

export const STATUSES: readonly SubscriptionStatus[] = ['pending', 'active', 'denied', 'revoked', 'ended'];

/** The table as a Mermaid state diagram (docs/contacts.md). */
export function stateDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> pending: subscribe', '  [*] --> active: redeem a link with auto-approve'];
  for (const [action, rule] of Object.entries(TRANSITIONS)) for (const from of rule.from) lines.push(`  ${from} --> ${rule.to}: ${action} (${rule.by})`);
  return lines.join('\n');
}
