import type { Compilable, CompiledQuery, Kysely } from 'kysely';

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

/**
 * A query built and compiled once, for the reads every request of a hot route makes (a card,
 * the authentication lookup): building and compiling a Kysely query costs more than SQLite
 * answering it. `build` receives one placeholder per parameter; each call binds the values in
 * their place and runs the same SQL (which the SQLite driver has prepared once too).
 */
export function preparedQuery<Row, Params extends unknown[]>(
  db: Kysely<any>,
  build: (...placeholders: Params) => Compilable<Row>,
  arity: Params['length'],
): (...params: Params) => Promise<Row[]> {
  let prepared: { compiled: CompiledQuery<Row>; slots: number[] } | undefined;
  // Compiled on first use: a query group is built for every transaction that uses it.
  function prepare() {
    const placeholders = Array.from({ length: arity }, (_, i) => `\u0000vid-parameter-${i}\u0000`) as Params;
    const compiled = build(...placeholders).compile();
    const slots = compiled.parameters.map((value) => placeholders.indexOf(value as never));
    for (let i = 0; i < arity; i++) {
      if (!slots.includes(i)) throw new Error(`prepared query: parameter ${i} is not used`);
    }
    return { compiled, slots };
  }
  const direct = directReaders.get(db);
  return async (...params) => {
    prepared ??= prepare();
    const { compiled, slots } = prepared;
    const parameters = compiled.parameters.map((value, i) => (slots[i]! >= 0 ? params[slots[i]!] : value));
    if (direct) return direct<Row>(compiled.sql, parameters);
    const { rows } = await db.executeQuery<Row>({ ...compiled, parameters } as CompiledQuery<Row>);
    return rows;
  };
}
