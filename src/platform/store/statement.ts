import { createHash } from 'node:crypto';
import { PostgresAdapter } from 'kysely';
import type { Compilable, CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * The one way to run a prepared statement (decision 340). A hot statement (the authentication
 * lookup, a renewal, a card read, a session's insert) is declared once, at module level, with
 * named, typed parameters:
 *
 *     const byId = statement('account by id', (db: Kysely<PlatformTables>, p: Param<{ id: string }>) =>
 *       db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', p('id')));
 *     await byId.first(db, { id });
 *
 * Declared at module level, it is built and compiled once per process and dialect, on first use (building and compiling a
 * Kysely query costs more than SQLite answering it), and each call binds its values by name. It
 * runs on whatever Kysely instance it is given: a transaction's (through Kysely, in that
 * transaction; on PostgreSQL its connection still runs it as the named statement, see
 * preparedName), or the store's own handle, where the database's fast lane takes it when there is
 * one (runDirectlyOn: SQLite's direct reader for a read, PostgreSQL's named statements).
 */
export interface Statement<P, Row> {
  readonly name: string;
  /** Every row. */
  all(on: Kysely<any>, params: P): Promise<Row[]>;
  /** The first row, or undefined. */
  first(on: Kysely<any>, params: P): Promise<Row | undefined>;
}

/**
 * Where a statement's parameter goes: `p('id')` stands for the value of `params.id`, typed as
 * it is. A parameter may be used any number of times; every one asked for must end up a bound
 * value (one read in JavaScript, or written into the SQL text, would be a silent bug: refused).
 */
export type Param<P> = <K extends keyof P & string>(key: K) => P[K];

/** Every row of a read-only statement outside any transaction (SQLite's group committer). */
export type DirectRowReader = <R>(sql: string, parameters: readonly unknown[]) => Promise<R[]>;

/** The part of pg.Pool a named statement needs. */
export interface NamedStatementPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>;
}

/** The fast lane of a store's own Kysely instance (never one of its transactions, which are other instances). */
export interface FastLane {
  /**
   * SQLite: a read straight from the statement, without Kysely's executor, connection provider
   * and lease (on a card read that machinery cost about as much as SQLite's answer).
   */
  read?: DirectRowReader;
  /**
   * PostgreSQL: the statement as a named prepared statement (the extended protocol), so each
   * connection parses and plans it once, not on every call.
   */
  pool?: NamedStatementPool;
}

const lanes = new WeakMap<Kysely<any>, FastLane>();

/**
 * Every compiled statement's PostgreSQL name, by its SQL text: a transaction's connection runs a
 * statement's text as that named statement (db.ts), so inside a transaction too each connection
 * parses and plans it once. Another query with the very same text would run as the same
 * statement, which is what it is.
 */
const preparedNames = new Map<string, string>();

/** The name a statement's SQL text runs under on PostgreSQL, or undefined for any other query. */
export function preparedName(sql: string): string | undefined {
  return preparedNames.get(sql);
}

/** Registers `db`'s fast lane (db.ts, when the store opens its database). */
export function runDirectlyOn(db: Kysely<any>, lane: FastLane): void {
  lanes.set(db, lane);
}

/** A parameter's stand-in while the statement is built: an object, so no constant can be mistaken for it. */
class Placeholder {
  constructor(readonly key: string) {}
  /** Written into the SQL text instead of bound (sql.raw, sql.ref, a template string): detected by this mark. */
  toString(): string {
    return `\u0000vid-parameter-${this.key}\u0000`;
  }
}

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /**
   * Its PostgreSQL name on every connection: the statement's name and a digest of its text, so
   * two statements given one name (or one built by each app of a process) never collide there.
   */
  prepared: string;
  /** Which parameter each bound value is; undefined: a constant of the statement itself. */
  slots: Array<string | undefined>;
  /** A read: SQLite's direct reader may serve it. */
  reads: boolean;
}

export function statement<DB, P extends object, Row>(
  name: string,
  /** `dialect`: for the rare statement whose SQL differs between the two (a row lock, a function's name). */
  build: (db: Kysely<DB>, p: Param<P>, dialect: Dialect) => Compilable<Row> | RawBuilder<Row>,
): Statement<P, Row> {
  /** Compiled once per dialect (the adapter's class: every database of a dialect, and its transactions, compile alike). */
  const compiledFor = new Map<Function, Compiled<Row>>();

  function compile(on: Kysely<DB>): Compiled<Row> {
    const handedOut = new Set<string>();
    const dialect = on.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
    const built = build(
      on,
      ((key: string) => {
        handedOut.add(key);
        return new Placeholder(key);
      }) as Param<P>,
      dialect,
    );
    const query = 'isRawBuilder' in built && built.isRawBuilder ? built.compile(on) : (built as Compilable<Row>).compile();
    if (query.sql.includes('\u0000vid-parameter-')) throw new Error(`statement ${name}: a parameter is written into the SQL text, not bound as a value`);
    const slots = query.parameters.map((value) => (value instanceof Placeholder ? value.key : undefined));
    for (const key of handedOut) if (!slots.includes(key)) throw new Error(`statement ${name}: parameter ${key} is not used`);
    const prepared = `vid ${name} ${createHash('sha256').update(query.sql).digest('base64url').slice(0, 12)}`;
    if (dialect === 'postgres') preparedNames.set(query.sql, prepared);
    return { query, prepared, slots, reads: query.query.kind === 'SelectQueryNode' };
  }

  async function all(on: Kysely<any>, params: P): Promise<Row[]> {
    const dialect = on.getExecutor().adapter.constructor;
    let compiled = compiledFor.get(dialect);
    if (compiled === undefined) {
      compiled = compile(on);
      compiledFor.set(dialect, compiled);
    }
    const { query, slots } = compiled;
    const values = params as Record<string, unknown>;
    // A value left undefined is NULL, as Kysely leaves an undefined column out of an insert (its default is NULL).
    const parameters = query.parameters.map((constant, i) => (slots[i] === undefined ? constant : (values[slots[i]!] ?? null)));
    const lane = lanes.get(on);
    if (lane?.read && compiled.reads) return lane.read<Row>(query.sql, parameters);
    if (lane?.pool) return (await lane.pool.query({ name: compiled.prepared, text: query.sql, values: parameters })).rows as Row[];
    const { rows } = await on.executeQuery<Row>({ ...query, parameters });
    return rows;
  }

  return {
    name,
    all,
    async first(on, params) {
      return (await all(on, params))[0];
    },
  };
}
