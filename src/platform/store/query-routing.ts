import type { Kysely } from 'kysely';
import type { Dialect } from './db.js';
import { currentUnit } from './recorded-unit.js';
import type { Bound, QueryGroup, QueryGroups, Tx } from './transaction.js';

/** A group's queries by name, as its QueryGroup built them. */
type Calls = Record<string, (...args: unknown[]) => unknown>;
/** Where one call of a group's query `name` runs: the route of Repository.direct or Repository.current. */
export type QueryRoute = (group: QueryGroup<unknown>, direct: Calls, name: string, args: unknown[]) => unknown;
/** A group's queries, built once: the shape of Store.use and Tx.use. */
export type UseGroup = <Q>(group: QueryGroup<Q>) => Q;

export function bind<G extends QueryGroups>(groups: G, use: UseGroup): Bound<G> {
  const bound: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(groups)) bound[name] = use(group);
  return bound as Bound<G>;
}

/** A use() that builds each group once per handle. */
export function memoised(db: Kysely<any>, dialect: Dialect): UseGroup {
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

/**
 * A group's queries in the request's recorded unit when one is open (recorded-unit.ts), else
 * outside any transaction (built once): Repository.current.
 */
export const inCurrentUnit: QueryRoute = (group, direct, name, args) => {
  const unit = currentUnit<Tx>();
  const tx = unit?.tx;
  return tx ? unit!.inUnit(async () => (tx.use(group) as Calls)[name]!(...args)) : direct[name]!(...args);
};

/**
 * A group's queries outside any transaction (built once): Repository.direct. Inside the request's
 * open recorded unit a direct statement is refused, in every environment (decision 341): it
 * would wait on the unit's own transaction (SQLite's one connection) or miss its writes
 * (PostgreSQL), and joining the unit instead would make `direct` mean `current`. The refusal
 * rolls the unit back, so nothing is half written; read back through `current`.
 */
export function directRoute(): QueryRoute {
  return (group, groupDirect, name, args) => {
    if (currentUnit<Tx>()?.open) throw new DirectInOpenUnit(name);
    return groupDirect[name]!(...args);
  };
}

export class DirectInOpenUnit extends Error {
  constructor(readonly statement: string) {
    super(`a direct statement (${statement}) inside the request's open recorded unit: read back its own writes through \`current\`, or use the transaction`);
  }
}

/** Queries whose every call `run` makes, once per group. */
export function routedBy(useDirect: UseGroup, run: QueryRoute): UseGroup {
  const built = new Map<QueryGroup<unknown>, unknown>();
  return <Q>(group: QueryGroup<Q>): Q => {
    let queries = built.get(group) as Q | undefined;
    if (queries === undefined) {
      const direct = useDirect(group) as Record<string, unknown>;
      const routed: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(direct)) {
        routed[name] =
          typeof value === 'function'
            ? (...args: unknown[]) => run(group as QueryGroup<unknown>, direct as Calls, name, args)
            : value;
      }
      queries = routed as Q;
      built.set(group, queries);
    }
    return queries;
  };
}
