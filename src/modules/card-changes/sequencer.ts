import type { RepositoryOf } from '../../platform/store/store.js';
import type { cardChangeLogQueries } from './queries.js';

/** Pending rows moved per transaction: a million followers' rows move in bounded steps. */
const BATCH = 10_000;

/**
 * PostgreSQL's sequencer (decision 342): gives committed card changes their positions in the log,
 * in short transactions that alone hold the head's row. A change's transaction asks for a run
 * after its commit (Tx.afterCommit) and is answered once its rows have moved, so a follower who
 * reads after the answer sees them, as when the change appended them itself.
 *
 * One run at a time per node; a run asked for while one is under way is one more run after it
 * (its rows may have committed after that run's snapshot), shared by everyone who asks
 * meanwhile: under load a run moves many changes at once. Runs on several nodes queue on the
 * head's row. A run that fails (the database away) leaves the rows pending: the next change's
 * run, or the sweep a node makes at start and every few seconds, moves them.
 */
export function createSequencer(deps: { db: RepositoryOf<{ cardChanges: typeof cardChangeLogQueries }>; warn(error: unknown, what: string): void }) {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  async function moveAll(): Promise<void> {
    for (;;) {
      const { moved } = await deps.db.transaction((q) => q.cardChanges.sequence(BATCH));
      if (moved < BATCH) return;
    }
  }

  function start(): Promise<void> {
    running = moveAll()
      .catch((error) => deps.warn(error, 'moving card changes into the log'))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  /** Moves every change committed before it was called (its failures are warned of, never thrown). */
  function run(): Promise<void> {
    if (running === undefined) return start();
    next ??= running.then(() => {
      next = undefined;
      return running ?? start();
    });
    return next;
  }

  return {
    run,
    /** Moves what a node that stopped between a commit and its run left pending. */
    async sweep(): Promise<void> {
      if (await deps.db.direct.cardChanges.pending()) await run();
    },
  };
}

export type Sequencer = ReturnType<typeof createSequencer>;
