import type SQLite from 'better-sqlite3';
import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult } from 'kysely';
import type { WalDurability } from './wal-sync.js';

/**
 * SQLite with group commit, for Kysely.
 *
 * With synchronous=FULL every COMMIT waits for an fsync (a few hundred microseconds on a good
 * disk, blocking the thread), so one commit per request caps writes at the disk's fsync rate.
 * Here the units of work (a transaction, or one statement outside any) that run while a batch
 * is open share one physical transaction:
 *
 * - The first unit opens the batch (BEGIN IMMEDIATE). A transaction runs inside its own
 *   SAVEPOINT, so its rollback undoes only its own writes; a single failing statement is undone
 *   by SQLite's statement atomicity.
 * - A finished unit gives the connection to the next one at once, but its promise settles only
 *   when the batch has committed: nothing is acknowledged before it is durable, so a crash at
 *   any moment loses no acknowledged write.
 * - The batch commits as soon as the connection is free (setImmediate after the last unit):
 *   the units that arrived meanwhile are queued ahead of the commit and join it. One fsync then
 *   covers all of them.
 * - A statement outside any transaction that runs while a batch is open may see the batch's
 *   uncommitted writes, so it too settles only after the commit: no response can show data a
 *   crash could still take back. With no batch open it runs and settles at once.
 * - A unit inside the batch may read what an earlier unit wrote; it commits in the same batch
 *   or a later one, never alone before it, so it cannot outlive what it read.
 * - If the commit fails (or SQLite aborts the transaction), every unit of the batch fails.
 * - Given a WalDurability (wal-sync.ts), COMMIT only writes the batch to the WAL, and the batch
 *   is durable once the WAL's fdatasync, run off the event loop, completes: its units settle
 *   then, and a read outside any batch that may have seen it waits for that sync as well. The
 *   connection is free meanwhile, so the next batch runs during the previous one's sync. A sync
 *   that fails fails every unit of its batch.
 *
 * Only this process writes to the file (the replay cache has its own file), so holding the
 * write lock for the life of a batch, a few milliseconds, delays no one else.
 */

const STATEMENT_CACHE_SIZE = 500;
const UNIT = 'vid_unit';

interface Batch {
  committed: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A read-only statement in raw mode and the row object of its values (GroupCommitter.reader). */
interface DirectReader {
  statement: SQLite.Statement;
  row(values: unknown[]): object;
}

function directReader(statement: SQLite.Statement): DirectReader {
  const names = statement.reader ? statement.columns().map((column) => column.name) : [];
  // A literal's "__proto__" member would set the prototype instead of a key: such a statement
  // (and one that returns no data) keeps better-sqlite3's own rows.
  if (!statement.reader || names.includes('__proto__')) return { statement, row: (row) => row };
  const build = new Function('v', `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as (values: unknown[]) => object;
  const width = names.length;
  statement.raw(true);
  return {
    statement,
    row(values) {
      // The columns of a statement are fixed by its text, unless a schema change re-prepares a
      // "select *" with other columns: then the names are read again.
      if (values.length !== width) return Object.fromEntries(statement.columns().map((column, i) => [column.name, values[i]]));
      return build(values);
    },
  };
}

/** A first-come, first-served lock on the one connection. */
class Lock {
  held = false;
  private readonly waiting: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

export interface GroupCommitStats {
  /** Physical commits (fsyncs). */
  commits: number;
  /** Units of work acknowledged after a commit. */
  units: number;
}

class GroupCommitter {
  readonly lock = new Lock();
  readonly stats: GroupCommitStats = { commits: 0, units: 0 };
  private batch: Batch | undefined;
  private commitQueued = false;
  private readonly statements = new Map<string, SQLite.Statement>();
  /** The statements of direct reads (readRows), raw, with their row builders. */
  private readonly readers = new Map<string, DirectReader>();
  /** The newest commit's sync while it runs (WalDurability only). */
  private durable: Promise<void> | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly wal?: WalDurability,
  ) {}

  /** What a read outside any batch waits for: the sync of the newest commit, which it may have seen. */
  get syncing(): Promise<void> | undefined {
    return this.durable;
  }

  /**
   * Kysely's SQL is parameterised, so few distinct statements exist: each is compiled once
   * (better-sqlite3 compiles on every prepare). Oldest dropped first past the bound; SQLite
   * re-prepares a kept statement itself after a schema change.
   */
  prepare(sql: string): SQLite.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  run(sql: string): void {
    this.prepare(sql).run();
  }

  get open(): Batch | undefined {
    return this.batch;
  }

  /** Opens the batch if none is open. Called with the lock held. */
  join(): Batch {
    if (this.batch) return this.batch;
    this.run('begin immediate');
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A batch whose units all rolled back has no one waiting for it.
    committed.catch(() => {});
    this.batch = { committed, resolve, reject };
    return this.batch;
  }

  /** After a statement failed inside the batch: if SQLite rolled the whole transaction back, the batch is lost. */
  checkAborted(error: unknown): void {
    if (this.batch && !this.sqlite.inTransaction) {
      const lost = this.batch;
      this.batch = undefined;
      lost.reject(error);
    }
  }

  /** Gives the connection back; if a batch is open, queues its commit behind whoever waits now. */
  release(): void {
    this.lock.release();
    if (this.batch && !this.commitQueued) {
      this.commitQueued = true;
      setImmediate(() => void this.commit());
    }
  }

  /** Commits the open batch, if any, once the connection is free. */
  async commit(): Promise<void> {
    await this.lock.acquire();
    this.commitQueued = false;
    const batch = this.batch;
    this.batch = undefined;
    try {
      if (!batch) return;
      try {
        this.run('commit');
        this.stats.commits++;
      } catch (error) {
        if (this.sqlite.inTransaction) this.run('rollback');
        batch.reject(error);
        return;
      }
      if (!this.wal) return batch.resolve();
      const durable = this.wal.sync();
      this.durable = durable;
      durable.then(batch.resolve, batch.reject).finally(() => {
        if (this.durable === durable) this.durable = undefined;
      });
    } finally {
      this.lock.release();
    }
  }

  /**
   * Every row of a read-only statement outside any transaction, for the statements of the hot
   * paths (statement.ts): with the connection free it runs at once, without a lease and its
   * promise hops. The rules of any read outside a transaction hold: while a unit holds the
   * connection it waits its turn, and an answer that may show an open batch's writes, or the
   * newest commit's, settles only once they are durable.
   */
  readRows<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    return this.readDirect(sql, (reader) => {
      const rows = reader.statement.all(parameters) as unknown[][];
      for (let i = 0; i < rows.length; i++) rows[i] = reader.row(rows[i]!) as never;
      return rows as R[];
    });
  }

  /**
   * A direct read's statement, in raw mode (each row an array of values), and the function that
   * makes the row object from it. better-sqlite3 builds a row object in C++ and turns every column
   * name into a V8 string again for every row: on the authentication lookup (24 columns) that
   * cost more than SQLite finding the row. The row built here is the same plain object, with the
   * same keys in the same order, from a literal generated once per statement (new Function: the
   * fastest of the ways measured side by side in decision 340, bench/micro/row-builders.ts). Kept
   * apart from the statements Kysely runs (those stay in object mode), with the same bound.
   */
  private reader(sql: string): DirectReader {
    let reader = this.readers.get(sql);
    if (reader === undefined) {
      const statement = this.sqlite.prepare(sql);
      if (!statement.readonly) throw new Error('direct reads run read-only statements');
      reader = directReader(statement);
      if (this.readers.size >= STATEMENT_CACHE_SIZE) this.readers.delete(this.readers.keys().next().value as string);
      this.readers.set(sql, reader);
    }
    return reader;
  }

  private async readDirect<T>(sql: string, read: (reader: DirectReader) => T): Promise<T> {
    const reader = this.reader(sql);
    let result: T;
    if (this.lock.held) {
      await this.lock.acquire();
      try {
        result = read(reader);
      } finally {
        this.release();
      }
    } else {
      result = read(reader);
    }
    const pending = this.batch?.committed ?? this.durable;
    if (pending) await pending;
    return result;
  }

  /** Waits for the batch a unit wrote to (or read from) to commit, then counts the unit. */
  async acknowledged(batch: Batch): Promise<void> {
    await batch.committed;
    this.stats.units++;
  }

  async close(): Promise<void> {
    // Whoever waits for the open batch gets its commit before the file closes.
    await this.commit();
    await this.wal?.close();
    this.sqlite.close();
  }
}

function execute(statement: SQLite.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/** One holder of the connection: a transaction, or one statement outside any. */
class Lease implements DatabaseConnection {
  inUnit = false;
  released = false;

  constructor(private readonly committer: GroupCommitter) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A lease that runs several statements outside a transaction (db.connection()) gave the
    // connection back after the first write: it takes it again for each statement.
    if (this.released) await this.takeAgain();
    const statement = this.committer.prepare(query.sql);
    if (this.inUnit) return this.executeInBatch(statement, query.parameters);
    // Outside a transaction. A read with no batch open sees only committed data, durable once
    // the newest commit's sync (if one runs) completes.
    if (statement.readonly && !this.committer.open) {
      const result = execute(statement, query.parameters) as QueryResult<R>;
      const syncing = this.committer.syncing;
      if (syncing) {
        // Waiting with the connection given back, so the writes behind this read run meanwhile.
        this.giveBack();
        await syncing;
      }
      return result;
    }
    const batch = statement.readonly ? this.committer.open! : this.committer.join();
    const result = this.executeInBatch<R>(statement, query.parameters);
    this.giveBack();
    await this.committer.acknowledged(batch);
    return result;
  }

  /** Runs a statement inside the open batch; a failure that aborted the whole transaction fails the batch. */
  private executeInBatch<R>(statement: SQLite.Statement, parameters: readonly unknown[]): QueryResult<R> {
    try {
      return execute(statement, parameters) as QueryResult<R>;
    } catch (error) {
      this.committer.checkAborted(error);
      throw error;
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('streaming is not supported by the group-commit SQLite driver');
  }

  async takeAgain(): Promise<void> {
    await this.committer.lock.acquire();
    this.released = false;
  }

  giveBack(): void {
    if (this.released) return;
    this.released = true;
    this.committer.release();
  }
}

class GroupCommitDriver implements Driver {
  constructor(private readonly committer: GroupCommitter) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.committer.lock.acquire();
    return new Lease(this.committer);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.released) await lease.takeAgain();
    this.committer.join();
    this.committer.run(`savepoint ${UNIT}`);
    lease.inUnit = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    const batch = this.committer.open;
    lease.inUnit = false;
    if (!batch) throw new Error('the transaction was rolled back by SQLite');
    this.committer.run(`release ${UNIT}`);
    lease.giveBack();
    await this.committer.acknowledged(batch);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // Given back already: its commit was attempted and failed with the whole batch.
    if (lease.released) return;
    lease.inUnit = false;
    if (!this.committer.open) return;
    this.committer.run(`rollback to ${UNIT}`);
    this.committer.run(`release ${UNIT}`);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Lease).giveBack();
  }

  async destroy(): Promise<void> {
    await this.committer.close();
  }
}

/** A Kysely dialect over one better-sqlite3 connection, with group commit (see above). */
export class GroupCommitSqliteDialect implements Dialect {
  private readonly committer: GroupCommitter;

  /** `wal`: who makes a commit durable when SQLite's COMMIT does not (wal-sync.ts); else COMMIT syncs. */
  constructor(sqlite: SQLite.Database, wal?: WalDurability) {
    this.committer = new GroupCommitter(sqlite, wal);
  }

  get stats(): GroupCommitStats {
    return this.committer.stats;
  }

  /** GroupCommitter.readRows: every row of a read-only statement, without Kysely's connection machinery. */
  readRows<R>(sql: string, parameters: readonly unknown[]): Promise<R[]> {
    return this.committer.readRows<R>(sql, parameters);
  }

  createDriver(): Driver {
    return new GroupCommitDriver(this.committer);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
