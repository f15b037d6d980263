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

export { uniqueViolation } from './db.js';
export type { DatabaseHandle, Dialect } from './db.js';

/**
 * The store core every module builds on (ARCHITECTURE: platform/store). A module keeps its SQL
 * in its own `queries.ts` as a query group: a function from a database handle to named
 * queries. The store binds groups to the database or to one transaction; services declare the
 * groups they use (`store.repository({ fields: fieldQueries })`), never the whole store.
 */
export type QueryGroup<Q> = (db: Kysely<any>, dialect: Dialect) => Q;
export type QueryGroups = Record<string, QueryGroup<unknown>>;
export type Bound<G extends QueryGroups> = { [K in keyof G]: ReturnType<G[K]> };

/** The repository a service declares: `RepositoryOf<{ fields: typeof fieldQueries }>`. */
export type RepositoryOf<G extends QueryGroups> = Repository<Bound<G>>;

/** One open transaction: every write through it commits together or not at all. */
export interface Tx {
  readonly db: Kysely<any>;
  readonly dialect: Dialect;
  /** The store's clock: signals written in this transaction are stamped with it. */
  now(): number;
  /** The queries of a group bound to this transaction (built once per transaction). */
  use<Q>(group: QueryGroup<Q>): Q;
  /** Signals appended in this transaction, published to listeners after the commit. */
  published(records: SignalRecord[]): void;
}

/** The query groups a service declares, outside a transaction or inside one. */
export interface Repository<Q> {
  /** Outside any transaction: each statement commits on its own. */
  readonly direct: Q;
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
  /** A group's queries outside any transaction (built once). */
  use<Q>(group: QueryGroup<Q>): Q;
  /** Runs fn in one transaction. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  repository<G extends QueryGroups>(groups: G): Repository<Bound<G>>;
  /**
   * Calls listener with the signals appended by each commit, after the commit (never for a
   * rollback), so stream hubs wake only for durable signals. Returns the unsubscribe function.
   */
  onSignalsCommitted(listener: (records: SignalRecord[]) => void): () => void;
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

const MAX_ATTEMPTS = 3;
const retryable = (error: unknown) => ['40P01', '40001'].includes((error as { code?: string })?.code ?? '');

function bind<G extends QueryGroups>(groups: G, use: <Q>(group: QueryGroup<Q>) => Q): Bound<G> {
  const bound: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(groups)) bound[name] = use(group);
  return bound as Bound<G>;
}

/** A use() that builds each group once per handle. */
function memoised(db: Kysely<any>, dialect: Dialect): <Q>(group: QueryGroup<Q>) => Q {
  const built = new Map<QueryGroup<unknown>, unknown>();
  return <Q>(group: QueryGroup<Q>): Q => {
    let queries = built.get(group) as Q | undefined;
    if (queries === undefined) {
      queries = group(db, dialect);
      built.set(group, queries);
    }
    return queries;
  };
}

export function createStore(handle: DatabaseHandle, options: { clock?: Clock } = {}): Store {
  const { db, dialect } = handle;
  const replay = handle.replayFile ? sqliteReplayStore(handle.replayFile) : postgresReplayStore(db);
  const committed = new Set<(records: SignalRecord[]) => void>();
  const publish = (records: SignalRecord[]) => {
    for (const listener of committed) {
      try {
        listener(records);
      } catch {
        // The change is committed: a failing listener must not turn it into an error.
      }
    }
  };
  const useDirect = memoised(db, dialect);

  function make(clock: Clock): Store {
    const store: Store = {
      dialect,
      handle,
      clock,
      replay,
      use: useDirect,
      async transaction(fn) {
        for (let attempt = 1; ; attempt++) {
          const appended: SignalRecord[] = [];
          try {
            const result = await db.transaction().execute((trx) =>
              fn({ db: trx, dialect, now: clock.now, use: memoised(trx, dialect), published: (records) => appended.push(...records) }),
            );
            if (appended.length) publish(appended);
            return result;
          } catch (error) {
            // PostgreSQL aborts one of two transactions that wait on each other's row locks
            // (40P01) or cannot be serialised (40001): it wrote nothing, so it runs again.
            if (attempt >= MAX_ATTEMPTS || !retryable(error)) throw error;
          }
        }
      },
      repository(groups) {
        const direct = bind(groups, useDirect);
        const inTx = (tx: Tx) => bind(groups, tx.use);
        return {
          direct,
          in: inTx,
          transaction: (fn) => store.transaction((tx) => fn(inTx(tx), tx)),
        };
      },
      onSignalsCommitted(listener) {
        committed.add(listener);
        return () => committed.delete(listener);
      },
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
