import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The recorded unit (decisions 002 and 341): what a request holding an Idempotency-Key asks of
 * the store. The answer it sends is committed in the same transaction as the change it answers,
 * so a crash can never leave a change without its recorded answer (whose retry would run the
 * change a second time).
 *
 * The request's first transaction hands its result back to the route when its work is done but
 * does not commit yet: it waits for the route's answer, writes it, and only then commits. Every
 * later transaction of the same request joins that open transaction, so the request sees its own
 * writes and never waits on itself. A read-back of what the request just wrote, to answer with
 * it, says so: `repository.current` runs in the open unit. `repository.direct` is not for that:
 * inside an open unit it is refused in the tests, and in production it joins the unit (it would
 * otherwise wait on the unit's own transaction) with a warning naming the statement.
 *
 * One owner: this class holds the unit's state and moves it only along UNIT_TRANSITIONS. The
 * store takes the actions marked `store`, the idempotency plugin the one marked `route`.
 */
export type UnitState =
  /** The request holds its key; no transaction yet. */
  | 'claimed'
  /** Its first transaction was asked for and has not begun. */
  | 'opening'
  /** The first transaction is open and doing the request's work. */
  | 'working'
  /** The work is done and its result went back to the route: the transaction waits, open, for the answer. */
  | 'answering'
  /** The route answered: the answer is being written and the transaction committed. */
  | 'recording'
  /** The change committed (with its answer recorded, or unrecorded for a refusal about credentials or timing). */
  | 'committed'
  /** Nothing of the unit stays: its transaction failed, or the request failed after its change. */
  | 'rolled_back';

export type UnitAction = 'open' | 'begin' | 'hand_over' | 'answer' | 'commit' | 'fail';

export const UNIT_TRANSITIONS = {
  open: { by: 'store', from: ['claimed'], to: 'opening' },
  // Again on a retried attempt (a deadlock PostgreSQL broke): the request's later transactions join the new one.
  begin: { by: 'store', from: ['opening', 'working'], to: 'working' },
  hand_over: { by: 'store', from: ['working'], to: 'answering' },
  answer: { by: 'route', from: ['answering'], to: 'recording' },
  commit: { by: 'store', from: ['recording'], to: 'committed' },
  fail: { by: 'store', from: ['opening', 'working', 'answering', 'recording'], to: 'rolled_back' },
} as const satisfies Record<UnitAction, { by: 'store' | 'route'; from: readonly UnitState[]; to: UnitState }>;

/** The states in which the request's transactions join the unit's. */
const OPEN: readonly UnitState[] = ['opening', 'working', 'answering', 'recording'];

/**
 * What the route's answer asks of the open transaction: `record` writes it there; undefined
 * means roll back (the request failed after its change, so the change must not outlive it).
 */
export type Answer<Tx> = ((tx: Tx) => Promise<void>) | undefined;

/**
 * Whether a route answered its unit later than the turn of the event loop in which the unit
 * handed its result over, which means it awaited something else after its service call: the
 * change's transaction stayed open meanwhile, holding its locks (on SQLite, the one connection
 * every other request waits for). Strict (tests, VID_STRICT_RECORDED_UNITS=1): such an answer
 * is refused and the change rolled back; otherwise it is only counted here.
 */
export const lateAnswers = { count: 0 };

export class LateAnswer extends Error {
  constructor() {
    super('a keyed route awaited something else after its service call: its answer came a turn of the event loop late');
  }
}

export class RecordedUnit<Tx> {
  #state: UnitState = 'claimed';
  #tx: Tx | undefined;
  #ready: Promise<Tx> | undefined;
  #opened: ((tx: Tx) => void) | undefined;
  #answered: ((answer: Answer<Tx>) => void) | undefined;
  #late = false;
  #armed = false;
  /** The request's own statements running in the open transaction (a read-back, a joined transaction). */
  #busy = 0;
  #handedOver = false;
  #outcome: Promise<void> | undefined;

  get state(): UnitState {
    return this.#state;
  }

  /** Whether the request's transactions join this unit's. */
  get open(): boolean {
    return OPEN.includes(this.#state);
  }

  /** Whether the unit's result went back to the route: from then on the change waits for (or took) the route's answer. */
  get handedOver(): boolean {
    return this.#handedOver;
  }

  /** The open transaction, for the request's later transactions to join (awaited while it is still opening). */
  joinable(): Promise<Tx> | undefined {
    return this.open ? this.#ready : undefined;
  }

  /** Settles when the unit's transaction committed, rejects when it failed; resolved at once if it never opened one. */
  get outcome(): Promise<void> {
    return this.#outcome ?? Promise.resolve();
  }

  #move(action: UnitAction): void {
    const transition = UNIT_TRANSITIONS[action];
    if (!(transition.from as readonly UnitState[]).includes(this.#state)) throw new Error(`recorded unit: ${action} is not allowed from ${this.#state}`);
    this.#state = transition.to;
  }

  /** store: the request's first transaction is asked for. */
  opening(): void {
    this.#move('open');
    this.#ready = new Promise<Tx>((resolve) => (this.#opened = resolve));
  }

  /** store: how the transaction ends (the idempotency plugin observes it once it answered; before, the service call does). */
  settles(outcome: Promise<void>): void {
    this.#outcome = outcome;
    outcome.catch(() => undefined);
  }

  /** store: the transaction began (again, for a retried attempt). */
  begin(tx: Tx): void {
    this.#move('begin');
    this.#tx = tx;
    this.#ready = Promise.resolve(tx);
    this.#opened?.(tx);
  }

  /** store: the work is done; the returned promise settles with the route's answer. */
  handOver(): Promise<Answer<Tx>> {
    this.#move('hand_over');
    this.#handedOver = true;
    this.#watch();
    return new Promise((resolve) => (this.#answered = resolve));
  }

  /**
   * A turn of the event loop from now, the route should have answered, unless the request's own
   * work in the open transaction still runs (then the watch starts again when it is done).
   */
  #watch(): void {
    if (this.#armed) return;
    this.#armed = true;
    setImmediate(() => {
      this.#armed = false;
      if (this.#state === 'answering' && this.#busy === 0) this.#late = true;
    });
  }

  /** The request's own work in its open transaction (store: `current` reads, joined transactions): not "something else". */
  async inUnit<T>(work: () => Promise<T>): Promise<T> {
    this.#busy++;
    try {
      return await work();
    } finally {
      this.#busy--;
      if (this.#busy === 0 && this.#state === 'answering') this.#watch();
    }
  }

  /** route (the idempotency plugin): the answer to write in the open transaction, or undefined to roll it back. */
  answer(answer: Answer<Tx>): void {
    // The store gave up waiting (ANSWER_TIMEOUT_MS) and rolled the change back: `outcome` says so.
    if (this.#state === 'rolled_back') return;
    this.#move('answer');
    if (this.#late) {
      lateAnswers.count++;
      if (process.env.VID_STRICT_RECORDED_UNITS === '1') {
        this.#answered!(() => Promise.reject(new LateAnswer()));
        return;
      }
    }
    this.#answered!(answer);
  }

  /** store: the transaction committed, or failed (before or after the hand-over). */
  finished(committed: boolean): void {
    this.#move(committed ? 'commit' : 'fail');
    this.#tx = undefined;
  }

  /** The open transaction (working, answering or recording). */
  get tx(): Tx | undefined {
    return this.open ? this.#tx : undefined;
  }
}

const units = new AsyncLocalStorage<RecordedUnit<unknown>>();
/** Units whose handler or transaction has not settled yet. */
let openUnits = 0;

/**
 * Runs fn (a route handler) with its transactions bound to unit. While any unit is open the
 * storage is enabled; once the last one settles it is disabled again, because on Node 20 an
 * enabled AsyncLocalStorage installs promise hooks that every promise of every request pays for
 * (the reads that never hold a key included), for the rest of the process's life. Nothing else
 * finds a request's unit: a service's `repository.transaction` needs it without being handed it.
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
  const settled = () => unit.outcome.then(closeUnit, closeUnit);
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

/**
 * Runs fn outside any request's unit: work after a unit's commit (Tx.afterCommit) runs while the
 * unit still counts as open, and its own transactions must not join the one that just committed.
 */
export function outsideAnyUnit<T>(fn: () => T): T {
  return units.exit(fn);
}
