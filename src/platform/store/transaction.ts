import type { Kysely } from 'kysely';
import type { SignalRecord } from '../signals/log.js';
import type { Dialect } from './dialect.js';

/**
 * The store core every module builds on (ARCHITECTURE: platform/store). A module keeps its SQL
 * in its own `queries.ts` as a query group: a function from a database handle to named
 * queries. The store binds groups to the database or to one transaction; services declare the
 * groups they use (`store.repository({ fields: fieldQueries })`), never the whole store.
 */
export type QueryGroup<Q> = (db: Kysely<any>, dialect: Dialect) => Q;
export type QueryGroups = Record<string, QueryGroup<unknown>>;
export type Bound<G extends QueryGroups> = { [K in keyof G]: ReturnType<G[K]> };

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
  /**
   * Work that must follow this transaction's commit before the change is answered (a rolled-back
   * transaction runs none): each task once per transaction, however often it is asked for,
   * awaited before the signals are published. A task reports its own failures: the change is
   * committed whatever it does.
   */
  afterCommit(task: () => Promise<void>): void;
}

