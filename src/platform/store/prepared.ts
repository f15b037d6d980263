import type { Compilable, CompiledQuery, Kysely } from 'kysely';

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
  return async (...params) => {
    prepared ??= prepare();
    const { compiled, slots } = prepared;
    const parameters = compiled.parameters.map((value, i) => (slots[i]! >= 0 ? params[slots[i]!] : value));
    const { rows } = await db.executeQuery<Row>({ ...compiled, parameters } as CompiledQuery<Row>);
    return rows;
  };
}
