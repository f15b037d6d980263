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
import { currentUnit } from './recorded-unit.js';
import type { RecordedUnit } from './recorded-unit.js';

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
  /** Owners whose card changed in this transaction: their followers' streams wake after the commit (decision 220). */
  publishedToFollowers(ownerIds: readonly string[]): void;
}

/** The query groups a service declares, outside a transaction or inside one. */
export interface Repository<Q> {
  /**
   * Outside any transaction: each statement commits on its own. Not for use while the request's
   * recorded unit is open (its transaction waiting for the route's answer): a direct statement
   * would wait for that transaction (SQLite's one connection) or miss its writes (PostgreSQL).
   * With VID_STRICT_RECORDED_UNITS=1 (every test run) it is refused there; in production it
   * joins the unit with a warning naming it, never silently. Read back through `current`.
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

const MAX_ATTEMPTS = 3;
/**
 * How long a recorded unit's transaction waits for the route's answer once its work is done. A
 * route answers within microseconds of its service returning; this bound only turns a route
 * that waits on something else into a rolled-back 500 instead of a stuck connection.
 */
const ANSWER_TIMEOUT_MS = 5_000;
const retryable = (error: unknown) => ['40P01', '40001'].includes((error as { code?: string })?.code ?? '');


/** Rolls a recorded unit back: its request failed after the change. */
export class UnitAbandoned extends Error {
  constructor() {
    super('the request failed after its change; the change is rolled back');
  }
}

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
  const committed = new Set<(records: SignalRecord[], followed: readonly string[]) => void>();
  const publish = (records: SignalRecord[], followed: readonly string[]) => {
    for (const listener of committed) {
      try {
        listener(records, followed);
      } catch {
        // The change is committed: a failing listener must not turn it into an error.
      }
    }
  };
  const useDirect = memoised(db, dialect);
  /**
   * A group's queries in the request's recorded unit when one is open (recorded-unit.ts), else
   * outside any transaction (built once): Repository.current.
   */
  const inCurrentUnit = (group: QueryGroup<unknown>, direct: Record<string, (...args: unknown[]) => unknown>, name: string, args: unknown[]) => {
    const unit = currentUnit<Tx>();
    const tx = unit?.tx;
    return tx ? unit!.inUnit(async () => (tx.use(group) as Record<string, (...a: unknown[]) => unknown>)[name]!(...args)) : direct[name]!(...args);
  };
  const current = wrapped(inCurrentUnit);
  /**
   * A group's queries outside any transaction (built once): Repository.direct. Inside an open
   * recorded unit they are refused in the tests (VID_STRICT_RECORDED_UNITS=1), and join it with
   * a warning in production (decision 341).
   */
  const strict = process.env.VID_STRICT_RECORDED_UNITS === '1';
  const warned = new Set<string>();
  const direct = wrapped((group, groupDirect, name, args) => {
    const unit = currentUnit<Tx>();
    if (!unit?.open) return groupDirect[name]!(...args);
    const misuse = `a direct statement (${name}) inside the request's open recorded unit: read back its own writes through \`current\`, or use the transaction`;
    if (strict) throw new Error(misuse);
    // In production it still joins the unit, as it must to neither wait on the unit's own
    // transaction (SQLite) nor miss its writes (PostgreSQL), but never silently.
    if (!warned.has(name)) {
      warned.add(name);
      process.emitWarning(misuse, 'RecordedUnitWarning');
    }
    return inCurrentUnit(group, groupDirect, name, args);
  });
  /** Queries whose every call `run` makes, once per group. */
  function wrapped(run: (group: QueryGroup<unknown>, direct: Record<string, (...args: unknown[]) => unknown>, name: string, args: unknown[]) => unknown) {
    const built = new Map<QueryGroup<unknown>, unknown>();
    return <Q>(group: QueryGroup<Q>): Q => {
      let queries = built.get(group) as Q | undefined;
      if (queries === undefined) {
        const direct = useDirect(group) as Record<string, unknown>;
        const routed: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(direct)) {
          routed[name] =
            typeof value === 'function'
              ? (...args: unknown[]) => run(group as QueryGroup<unknown>, direct as Record<string, (...a: unknown[]) => unknown>, name, args)
              : value;
        }
        queries = routed as Q;
        built.set(group, queries);
      }
      return queries;
    };
  }

  /**
   * Runs fn in one transaction and publishes its signals after the commit. beforeCommit runs
   * inside it once fn is done. A transaction PostgreSQL aborted as a deadlock (40P01) or a
   * serialisation failure (40001) wrote nothing, so it runs again while mayRetry says so.
   */
  async function inTransaction<T>(clock: Clock, fn: (tx: Tx) => Promise<T>, beforeCommit?: (tx: Tx, result: T) => Promise<void>, mayRetry = () => true): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const appended: SignalRecord[] = [];
      const followed: string[] = [];
      try {
        const result = await db.transaction().execute(async (trx) => {
          const tx: Tx = {
            db: trx,
            dialect,
            now: clock.now,
            use: memoised(trx, dialect),
            published: (records) => appended.push(...records),
            publishedToFollowers: (ownerIds) => followed.push(...ownerIds),
          };
          const done = await fn(tx);
          if (beforeCommit) await beforeCommit(tx, done);
          return done;
        });
        if (appended.length || followed.length) publish(appended, followed);
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !retryable(error) || !mayRetry()) throw error;
      }
    }
  }

  /**
   * The request's first transaction as a recorded unit (recorded-unit.ts): its result goes back
   * to the caller when fn is done, and the commit waits for the answer to be written into it.
   */
  function recorded<T>(unit: RecordedUnit<Tx>, fn: (tx: Tx) => Promise<T>, clock: Clock): Promise<T> {
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
        return unit?.state === 'claimed' ? recorded(unit, fn, clock) : inTransaction(clock, fn);
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
