import type { SelectQueryBuilder } from 'kysely';
import type { Tx } from '../store/store.js';
import { SIGNAL_KINDS, resourceOf } from './catalogue.js';
import type { SignalKindName, SignalParams } from './catalogue.js';
import { signalLog } from './log.js';

/**
 * Emits a signal to one account or several, in the transaction of the change that causes it
 * (PRODUCT §7: durable before the change is acknowledged). The resource comes from the
 * catalogue; a kind whose path names one resource takes its values:
 * `signal(tx, subscriberId, 'contact.card.changed', { id: contactId })`.
 * Several accounts cost one set-based write, not one per account.
 */
export async function signal<K extends SignalKindName>(tx: Tx, accounts: string | readonly string[], kind: K, ...params: SignalParams<K>): Promise<void> {
  const accountIds = typeof accounts === 'string' ? [accounts] : [...new Set(accounts)];
  if (accountIds.length === 0) return;
  const resource = resourceOf(kind, params[0] as Record<string, string> | undefined);
  tx.published(await tx.use(signalLog).append(accountIds, kind, resource, tx.now()));
}

/**
 * Fan-out where each account pulls its own resource (`/contacts/{id}/card` with each
 * subscriber's contact id): one set-based write for all of them.
 */
export async function signalEach<K extends SignalKindName>(tx: Tx, targets: ReadonlyArray<{ accountId: string; params: SignalParams<K>[0] }>, kind: K): Promise<void> {
  if (targets.length === 0) return;
  const resources = new Map(targets.map((t) => [t.accountId, resourceOf(kind, t.params as Record<string, string> | undefined)]));
  tx.published(await tx.use(signalLog).append([...resources.keys()], kind, (accountId) => resources.get(accountId)!, tx.now()));
}

/**
 * Fan-out to every account a query selects (`account_id`, and `param` for the resource's one
 * placeholder, '' for a kind without one), written set-based in the transaction: `contact.card.changed` to every active
 * subscriber of a profile costs a few statements, not one per subscriber.
 */
export async function signalSelected<K extends SignalKindName>(tx: Tx, targets: SelectQueryBuilder<any, any, { account_id: string; param: string }>, kind: K): Promise<number> {
  const template = SIGNAL_KINDS[kind].resource as string;
  const [prefix, suffix, extra] = template.split(/\{[a-z_]+\}/);
  if (extra !== undefined) throw new Error(`signal ${kind}: a fan-out resource has at most one placeholder`);
  // A kind without a placeholder (`/contacts`) takes the path as it is: the targets' param is ''.
  const records = await tx.use(signalLog).appendSelected(targets, kind, { prefix: prefix!, suffix: suffix ?? '' }, tx.now());
  tx.published(records);
  return records.length;
}

/**
 * The caller's transaction already holds these accounts' rows FOR UPDATE, taken by a statement
 * of its own (PostgreSQL): a signal to them later in this transaction numbers without locking them
 * again (log.ts lockAccounts). Say it only right after such a statement; SQLite has one writer and
 * locks nothing.
 */
export function accountRowsHeld(tx: Tx, accountIds: readonly string[]): void {
  tx.use(signalLog).rowsHeld(accountIds);
}
