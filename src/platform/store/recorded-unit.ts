import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a request holding an Idempotency-Key asks of the store (decision 002; Tx is the store's
 * transaction): the answer it
 * sends is committed in the same transaction as the change it answers, so a crash can never
 * leave a change without its recorded answer (whose retry would run the change a second time).
 *
 * The request's first transaction hands its result back to the route when its work is done but
 * does not commit yet: it waits for the route's answer, writes it through `record`, and only
 * then commits. Every later transaction of the same request, and every direct statement a
 * repository runs for it, joins that open transaction, so the request sees its own writes and
 * never waits on itself.
 */
export interface RecordedUnit<Tx> {
  /** The open transaction, once the request's first transaction has done its work. */
  tx?: Tx;
  /**
   * Settled by the route's answer: `record` writes it in `tx`, or undefined means roll back
   * (the request failed after its change, so the change must not outlive the failure).
   */
  answered?: (record: ((tx: Tx) => Promise<void>) | undefined) => void;
  /** The open transaction to come, for the request's later transactions to join. */
  ready?: Promise<Tx>;
  /** True once the transaction committed or failed: the request's statements run on their own again. */
  closed?: boolean;
  /** True once the transaction's work is done and its result went back to the route. */
  handedOver?: boolean;
  /** Settles when the open transaction committed (or failed to). */
  committed?: Promise<void>;
}

const units = new AsyncLocalStorage<RecordedUnit<unknown>>();
/** Units whose handler or transaction has not settled yet. */
let openUnits = 0;

/**
 * Runs fn (a route handler) with its transactions bound to unit. While any unit is open the
 * storage is enabled; once the last one settles it is disabled again, because on Node 20 an
 * enabled AsyncLocalStorage installs promise hooks that every promise of every request pays for
 * (the reads that never hold a key included), for the rest of the process's life.
 */
export function withRecordedUnit<Tx, T>(unit: RecordedUnit<Tx>, fn: () => T): T {
  openUnits++;
  let result: T;
  try {
    result = units.run(unit as RecordedUnit<unknown>, fn);
  } catch (error) {
    closeUnit();
    throw error;
  }
  // The handler has settled once its promise has; its transaction, if it opened one, commits
  // after the route's answer is written into it (the idempotency plugin's onSend).
  const settled = () => (unit.committed ?? Promise.resolve()).then(closeUnit, closeUnit);
  Promise.resolve(result).then(settled, settled);
  return result;
}

function closeUnit(): void {
  openUnits--;
  // Nothing reads the storage once no unit is open; the next run() enables it again.
  if (openUnits === 0) units.disable();
}

/** The unit of the request being served, if it holds an Idempotency-Key. */
export function currentUnit<Tx>(): RecordedUnit<Tx> | undefined {
  return units.getStore() as RecordedUnit<Tx> | undefined;
}
