import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { SignalRecord } from '../signals/log.js';
import type { Dialect } from './db.js';
import { memoised } from './query-routing.js';
import { outsideAnyUnit } from './recorded-unit.js';
import type { Tx } from './transaction.js';

const MAX_ATTEMPTS = 3;
const retryable = (error: unknown) => ['40P01', '40001'].includes((error as { code?: string })?.code ?? '');

export type CommitListener = (records: SignalRecord[], followed: readonly string[]) => void;

/** The store's transactions and the listeners that hear of each commit's signals (Store.onSignalsCommitted). */
export function createTransactionRunner(db: Kysely<any>, dialect: Dialect) {
  const committed = new Set<CommitListener>();
  const publish = (records: SignalRecord[], followed: readonly string[]) => {
    for (const listener of committed) {
      try {
        listener(records, followed);
      } catch {
        // The change is committed: a failing listener must not turn it into an error.
      }
    }
  };

  /**
   * Runs fn in one transaction, then its after-commit tasks, then publishes its signals. beforeCommit runs
   * inside it once fn is done. A transaction PostgreSQL aborted as a deadlock (40P01) or a
   * serialisation failure (40001) wrote nothing, so it runs again while mayRetry says so.
   */
  async function inTransaction<T>(clock: Clock, fn: (tx: Tx) => Promise<T>, beforeCommit?: (tx: Tx, result: T) => Promise<void>, mayRetry = () => true): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const appended: SignalRecord[] = [];
      const followed: string[] = [];
      const afterCommit = new Set<() => Promise<void>>();
      try {
        const result = await db.transaction().execute(async (trx) => {
          const tx: Tx = {
            db: trx,
            dialect,
            now: clock.now,
            use: memoised(trx, dialect),
            published: (records) => appended.push(...records),
            publishedToFollowers: (ownerIds) => followed.push(...ownerIds),
            afterCommit: (task) => afterCommit.add(task),
          };
          const done = await fn(tx);
          if (beforeCommit) await beforeCommit(tx, done);
          return done;
        });
        for (const task of afterCommit) await outsideAnyUnit(task).catch(() => undefined);
        if (appended.length || followed.length) publish(appended, followed);
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !retryable(error) || !mayRetry()) throw error;
      }
    }
  }

  return {
    inTransaction,
    onSignalsCommitted(listener: CommitListener) {
      committed.add(listener);
      return () => committed.delete(listener);
    },
  };
}

export type TransactionRunner = ReturnType<typeof createTransactionRunner>['inTransaction'];
