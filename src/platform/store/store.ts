import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { SignalRecord } from '../signals/log.js';
import { openPostgres, openSqlite } from './db.js';
import type { DatabaseHandle, Dialect, OpenOptions } from './db.js';
import { postgresReplayStore, sqliteReplayStore } from './dpop-jtis.js';
import type { ReplayStore } from './dpop-jtis.js';
import { bind, directRoute, inCurrentUnit, memoised, routedBy } from './query-routing.js';
import { recordedTransaction } from './recorded-transaction.js';
import { currentUnit } from './recorded-unit.js';
import { createTransactionRunner } from './transaction-runner.js';
import type { Bound, QueryGroup, QueryGroups, Tx } from './transaction.js';

export { uniqueViolation } from './db.js';
export { UnitAbandoned } from './recorded-transaction.js';
export type { DatabaseHandle, Dialect } from './db.js';
export type { Bound, QueryGroup, QueryGroups, Tx } from './transaction.js';

/** The repository a service declares: `RepositoryOf<{ fields: typeof fieldQueries }>`. */
export type RepositoryOf<G extends QueryGroups> = Repository<Bound<G>>;

/** The query groups a service declares, outside a transaction or inside one. */
export interface Repository<Q> {
  /**
   * Outside any transaction: each statement commits on its own. Not for use while the request's
   * recorded unit is open (its transaction waiting for the route's answer): a direct statement
   * would wait for that transaction (SQLite's one connection) or miss its writes (PostgreSQL).
   * It is refused there (DirectInOpenUnit, decision 341), in every environment. Read back
   * through `current`.
   */
  readonly direct: Q;
  /**
   * In the request's recorded unit when one is open, else outside any transaction like `direct`:
   * for reading back what the request itself just wrote, to answer with it (a created profile's
   * view, a new contact's), which a keyed request has not committed yet.
   */
  readonly current: Q;
  /** Runs fn in a new transaction with the same queries bound to it. */
  transaction<T>(fn: (q: Q, tx: Tx) => Promise<T>): Promise<T>;
  /** The same queries inside a transaction another service opened. */
  in(tx: Tx): Q;
}

export interface Store {
  dialect: Dialect;
  handle: DatabaseHandle;
  clock: Clock;
  /** The DPoP jti cache: outside transactions and off the durable write path. */
  replay: ReplayStore;
  /** A group's queries outside any transaction (built once), as Repository.direct. */
  use<Q>(group: QueryGroup<Q>): Q;
  /** A group's queries in the request's recorded unit when one is open, else outside any transaction (built once), as Repository.current. */
  current<Q>(group: QueryGroup<Q>): Q;
  /** Runs fn in one transaction. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  repository<G extends QueryGroups>(groups: G): Repository<Bound<G>>;
  /**
   * Calls listener with the signals appended by each commit, and the owners whose followers
   * should hear of a card change, after the commit (never for a rollback), so stream hubs wake
   * only for durable signals. Returns the unsubscribe function.
   */
  onSignalsCommitted(listener: (records: SignalRecord[], followed: readonly string[]) => void): () => void;
  /** The same store whose transactions stamp signals with `clock` (an app's injected clock). */
  withClock(clock: Clock): Store;
  /** Readiness probe: one round trip to the database. */
  ping(): Promise<void>;
  /** Deletes what has expired (challenges, jtis, idempotency records); returns rows removed. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}

export function openDatabase(config: Pick<Config, 'database'>, options: OpenOptions = {}): DatabaseHandle {
  return config.database.kind === 'postgres' ? openPostgres(config.database.url, { poolSize: config.database.poolSize, ...options }) : openSqlite(config.database.path);
}

/**
 * The store over one database handle: queries bound outside any transaction (`direct`), to the
 * request's recorded unit (`current`), or to a transaction (transaction-runner.ts), whose first
 * one in a keyed request is its recorded unit (recorded-transaction.ts).
 */
export function createStore(handle: DatabaseHandle, options: { clock?: Clock } = {}): Store {
  const { db, dialect } = handle;
  const replay = handle.replayFile ? sqliteReplayStore(handle.replayFile) : postgresReplayStore(db);
  const transactions = createTransactionRunner(db, dialect);
  const { inTransaction } = transactions;
  const useDirect = memoised(db, dialect);
  const current = routedBy(useDirect, inCurrentUnit);
  const direct = routedBy(useDirect, directRoute());

  function make(clock: Clock): Store {
    const store: Store = {
      dialect,
      handle,
      clock,
      replay,
      use: direct,
      current,
      async transaction(fn) {
        const unit = currentUnit<Tx>();
        const joined = unit?.joinable();
        if (joined) return unit!.inUnit(async () => fn(await joined));
        return unit?.state === 'claimed' ? recordedTransaction(inTransaction, unit, fn, clock) : inTransaction(clock, fn);
      },
      repository(groups) {
        const inTx = (tx: Tx) => bind(groups, tx.use);
        return {
          direct: bind(groups, direct),
          current: bind(groups, current),
          in: inTx,
          transaction: (fn) => store.transaction((tx) => fn(inTx(tx), tx)),
        };
      },
      onSignalsCommitted: transactions.onSignalsCommitted,
      withClock: make,
      async ping() {
        await sql`select 1`.execute(db);
      },
      async prune(now) {
        let removed = 0;
        const ceremonies = await db.deleteFrom('ceremonies').where('expires_at', '<=', now).executeTakeFirst();
        const idem = await db.deleteFrom('idempotency_records').where('expires_at', '<=', now).executeTakeFirst();
        for (const r of [ceremonies, idem]) removed += Number(r.numDeletedRows);
        removed += await replay.prune(now);
        return removed;
      },
      async close() {
        await db.destroy();
        handle.replayFile?.close();
      },
    };
    return store;
  }
  return make(options.clock ?? systemClock);
}
