import type { Clock } from '../clock.js';
import type { RecordedUnit } from './recorded-unit.js';
import type { Tx } from './transaction.js';
import type { TransactionRunner } from './transaction-runner.js';

/**
 * How long a recorded unit's transaction waits for the route's answer once its work is done. A
 * route answers within microseconds of its service returning; this bound only turns a route
 * that waits on something else into a rolled-back 500 instead of a stuck connection.
 */
const ANSWER_TIMEOUT_MS = 5_000;

/** Rolls a recorded unit back: its request failed after the change. */
export class UnitAbandoned extends Error {
  constructor() {
    super('the request failed after its change; the change is rolled back');
  }
}

/**
 * The request's first transaction as a recorded unit (recorded-unit.ts): its result goes back
 * to the caller when fn is done, and the commit waits for the answer to be written into it.
 */
export function recordedTransaction<T>(inTransaction: TransactionRunner, unit: RecordedUnit<Tx>, fn: (tx: Tx) => Promise<T>, clock: Clock): Promise<T> {
  return new Promise<T>((handOver, fail) => {
    const work = async (tx: Tx) => {
      unit.begin(tx);
      return fn(tx);
    };
    const writeAnswer = async (tx: Tx, result: T) => {
      const answered = unit.handOver();
      handOver(result);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the route did not answer its recorded unit in time')), ANSWER_TIMEOUT_MS);
        timer.unref();
      });
      const record = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
      if (!record) throw new UnitAbandoned();
      await record(tx);
    };
    unit.opening();
    const outcome = inTransaction(clock, work, writeAnswer, () => !unit.handedOver).then(
      () => unit.finished(true),
      (error) => {
        unit.finished(false);
        if (!unit.handedOver) fail(error);
        throw error;
      },
    );
    unit.settles(outcome);
  });
}
