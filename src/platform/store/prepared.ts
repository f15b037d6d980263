import type { Compilable, CompiledQuery, Kysely, RawBuilder } from 'kysely';

/** Every row of a read-only statement outside any transaction (SQLite's group committer). */
export type DirectRowReader = <R>(sql: string, parameters: readonly unknown[]) => Promise<R[]>;

const directReaders = new WeakMap<Kysely<any>, DirectRowReader>();

/**
 * SQLite: prepared queries on `db` itself (never on one of its transactions, which are other
 * Kysely instances) read straight from the statement, without Kysely's executor, connection
 * provider and lease: on a card read that machinery cost about as much as SQLite's answer.
 */
export function readDirectlyOn(db: Kysely<any>, reader: DirectRowReader): void {
  directReaders.set(db, reader);
}

/** The part of pg.Pool a named statement needs. */
export interface NamedStatementPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>;
}

/** How a prepared query with named parameters runs on `db` itself. */
export interface PreparedOptions {
  /**
   * PostgreSQL: with `pool`, the statement runs as this named prepared statement (the extended
   * protocol): each connection parses and plans it once, not on every call.
   */
  name?: string;
  pool?: NamedStatementPool;
}

/**
 * A prepared query with named parameters: each call binds the values of `params` by name. On
 * `db` itself by default; `on` runs the same SQL on another Kysely instance of the same database
 * (a transaction of it, for statements that must commit together).
 */
export type PreparedStatement<Params, Row> = (params: Params, on?: Kysely<any>) => Promise<Row[]>;

/**
 * A query built and compiled once, for the statements every request of a hot route makes (a
 * card, the authentication lookup, a renewal): building and compiling a Kysely query costs more
 * than SQLite answering it. `build` receives placeholders, one per parameter, and puts them
 * where values go; each call binds its values in their place and runs the same SQL (which the
 * SQLite driver has prepared once too). A placeholder may be used any number of times.
 *
 * Positional: `build(a, b)` with its arity, called as `query(a, b)`. Named: `build(p)` uses
 * `p.name`s, called as `query({ name: … })` (no hand-counted parameter positions), optionally
 * as a PostgreSQL named statement (PreparedOptions).
 */
export function preparedQuery<Row, Params extends unknown[]>(
  db: Kysely<any>,
  build: (...placeholders: Params) => Compilable<Row>,
  arity: Params['length'],
): (...params: Params) => Promise<Row[]>;
export function preparedQuery<Row, Params extends object>(
  db: Kysely<any>,
  build: (placeholders: Params) => Compilable<Row> | RawBuilder<Row>,
  options?: PreparedOptions,
): PreparedStatement<Params, Row>;
export function preparedQuery<Row>(
  db: Kysely<any>,
  build: (...placeholders: any[]) => Compilable<Row> | RawBuilder<Row>,
  arityOrOptions?: number | PreparedOptions,
): (...args: any[]) => Promise<Row[]> {
  if (typeof arityOrOptions === 'number') {
    const arity = arityOrOptions;
    const run = prepare<Row>(db, (placeholder) => build(...Array.from({ length: arity }, (_, i) => placeholder(i))), Array.from({ length: arity }, (_, i) => i), {});
    return (...params: unknown[]) => run(params, db);
  }
  const run = prepare<Row>(
    db,
    (placeholder) => build(new Proxy({}, { get: (_, key) => (typeof key === 'string' ? placeholder(key) : undefined) })),
    undefined,
    arityOrOptions ?? {},
  );
  return (params: Record<string, unknown>, on: Kysely<any> = db) => run(params, on);
}

const PLACEHOLDER_MARK = '\u0000vid-parameter-';

/** A call's values: positional ones in an array, named ones in an object. */
type Bindings = readonly unknown[] | Readonly<Record<string, unknown>>;

/**
 * Compiles on first use (a query group is built for every transaction that uses it), then binds
 * and runs. `expected`: the parameters that must each be used (positional); otherwise every
 * placeholder `build` asked for must end up a bound value (a named one read in JavaScript, or
 * written into the SQL text, would be a silent bug).
 */
function prepare<Row>(
  db: Kysely<any>,
  build: (placeholder: (key: string | number) => string) => Compilable<Row> | RawBuilder<Row>,
  expected: Array<string | number> | undefined,
  options: PreparedOptions,
): (params: Bindings, on: Kysely<any>) => Promise<Row[]> {
  let prepared: { compiled: CompiledQuery<Row>; slots: Array<string | number | undefined>; readsDirectly: boolean } | undefined;
  const direct = directReaders.get(db);
  function compile() {
    const handedOut = new Map<string, string | number>();
    const built = build((key) => {
      const placeholder = `${PLACEHOLDER_MARK}${key}\u0000`;
      handedOut.set(placeholder, key);
      return placeholder;
    });
    const compiled = (built as RawBuilder<Row>).isRawBuilder === true ? (built as RawBuilder<Row>).compile(db) : (built as Compilable<Row>).compile();
    if (compiled.sql.includes(PLACEHOLDER_MARK)) throw new Error('prepared query: a parameter is written into the SQL text, not bound as a value');
    // Which parameter each bound value is (undefined: a constant of the query itself).
    const slots = compiled.parameters.map((value) => (typeof value === 'string' ? handedOut.get(value) : undefined));
    for (const key of expected ?? handedOut.values()) {
      if (!slots.includes(key)) throw new Error(`prepared query: parameter ${key} is not used`);
    }
    // The direct reader serves reads only: any other statement goes through Kysely.
    return { compiled, slots, readsDirectly: direct !== undefined && compiled.query.kind === 'SelectQueryNode' };
  }
  return async (params, on) => {
    prepared ??= compile();
    const { compiled, slots } = prepared;
    const parameters = compiled.parameters.map((value, i) => (slots[i] === undefined ? value : (params as Record<string | number, unknown>)[slots[i]!]));
    if (on === db) {
      if (prepared.readsDirectly) return direct!<Row>(compiled.sql, parameters);
      if (options.pool && options.name) return (await options.pool.query({ name: options.name, text: compiled.sql, values: parameters })).rows as Row[];
    }
    const { rows } = await on.executeQuery<Row>({ ...compiled, parameters } as CompiledQuery<Row>);
    return rows;
  };
}

const ONCE_PARAMETER = '\u0000vid-once-';
const statementsOnce = new Map<string, { compiled: CompiledQuery<unknown>; slots: string[] }>();

/**
 * A statement that runs inside transactions (whose query groups are built for each one, so a
 * preparedQuery there would compile again every time), compiled once per dialect and name and
 * bound by name on each call: building and compiling a Kysely insert costs more than SQLite
 * running it. `build` puts `p(name)` where each value goes; every value of the statement must be
 * one of them. Returns the compiled query with this call's values, for `db.executeQuery`.
 */
export function compiledOnce<Row>(
  /** The database's dialect (db.ts), which the SQL text depends on: part of the statement's key. */
  dialect: string,
  name: string,
  build: (p: (key: string) => string) => Compilable<Row>,
  values: Readonly<Record<string, unknown>>,
): CompiledQuery<Row> {
  const key = `${dialect} ${name}`;
  let statement = statementsOnce.get(key);
  if (statement === undefined) {
    const handedOut: string[] = [];
    const compiled = build((parameter) => {
      handedOut.push(parameter);
      return `${ONCE_PARAMETER}${parameter}\u0000`;
    }).compile() as CompiledQuery<unknown>;
    if (compiled.sql.includes(ONCE_PARAMETER)) throw new Error(`${name}: a parameter is written into the SQL text, not bound as a value`);
    const slots = compiled.parameters.map((value) => {
      if (typeof value !== 'string' || !value.startsWith(ONCE_PARAMETER)) throw new Error(`${name}: a value of the statement is not a parameter`);
      return value.slice(ONCE_PARAMETER.length, -1);
    });
    for (const parameter of handedOut) if (!slots.includes(parameter)) throw new Error(`${name}: parameter ${parameter} is not used`);
    statement = { compiled, slots };
    statementsOnce.set(key, statement);
  }
  const { compiled, slots } = statement;
  // A value left undefined is NULL, as Kysely leaves the column out of an insert (its default is NULL).
  return { ...compiled, parameters: slots.map((slot) => values[slot] ?? null) } as CompiledQuery<Row>;
}
