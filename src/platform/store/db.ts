import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import type { DatabaseIntrospector, PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { loadPg } from '../optional-deps.js';
import { SchemaScopedIntrospector } from './postgres-introspector.js';
import { createPrivateFile } from './private-file.js';
import { preparedName, runDirectlyOn } from './statement.js';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import type { GroupCommitStats } from './sqlite-group-commit.js';
import { walDurability } from './wal-sync.js';

export type { Dialect } from './dialect.js';
import type { Dialect } from './dialect.js';

export interface DatabaseHandle {
  /** Typed per module by its query groups (each names the tables it uses). */
  db: Kysely<any>;
  dialect: Dialect;
  /** The pg pool, for LISTEN/NOTIFY and health checks; undefined on SQLite. */
  pool?: pg.Pool;
  /** The PostgreSQL schema when not the default search path. */
  schema?: string;
  /** SQLite: the side file for the DPoP replay cache (see dpop-jtis.ts). */
  replayFile?: SQLite.Database;
  /** SQLite: the group committer's running totals (commits, units), read by /metrics. */
  groupCommit?: GroupCommitStats;
  /**
   * SQLite: the file's data version, which changes whenever another connection (another
   * process: `npm run admin`, `purge`, `rotate-secrets`) commits to it, never for our own commits
   * (sqlite.org/pragma.html#pragma_data_version). Cheap: read from the WAL index in shared memory.
   */
  dataVersion?: () => number;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (tests give every suite its own). */
  schema?: string;
  poolSize?: number;
  /** How long opening a PostgreSQL connection may take before the database counts as away. */
  connectTimeoutMs?: number;
}

export function openSqlite(path: string): DatabaseHandle {
  const replayPath = path === ':memory:' ? ':memory:' : path.replace(/(\.sqlite)?$/, '-replay.sqlite');
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createPrivateFile(path);
    createPrivateFile(replayPath);
  }
  const sqlite = new SQLite(path);
  // WAL lets readers proceed during a write. Every acknowledged commit survives a power loss,
  // not just a process crash: the WAL is synced before anything is acknowledged, off the event
  // loop (wal-sync.ts, decision 005).
  const wal = walDurability(sqlite);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const replayFile = new SQLite(replayPath);
  // Commits are grouped (sqlite-group-commit.ts): one fsync covers every write that came in meanwhile.
  const dialect = new GroupCommitSqliteDialect(sqlite, wal);
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const db = new Kysely<any>({ dialect });
  // Statements (statement.ts) read on `db` itself straight from SQLite, without Kysely's connection machinery.
  runDirectlyOn(db, { read: (sql, parameters) => dialect.readRows(sql, parameters) });
  return { db, dialect: 'sqlite', replayFile, groupCommit: dialect.stats, dataVersion: () => dataVersion.get() as number };
}

export function openPostgres(url: string, options: OpenOptions = {}): DatabaseHandle {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // int8 columns hold millisecond times, well inside Number's exact range.
    types: { getTypeParser: (oid: number, format?: any) => (oid === 20 ? Number : (pg.types.getTypeParser as any)(oid, format)) } as any,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
    // A database that does not answer a new connection within this is away: the request gets its
    // 503 (database_unavailable) instead of waiting on a half-open socket.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
  });
  // A dropped connection (PostgreSQL restarted, a failover, pg_terminate_backend) makes its client
  // emit 'error'; an EventEmitter with no listener for it throws, which ends the process. The
  // pool listens only while a client is idle, so every client gets its own listener for its
  // whole life, checked out or idle: a query on it has already failed (its request answers 503,
  // see databaseUnavailable) and the pool discards the broken client when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<any>({ dialect: new ScopedPostgresDialect({ pool: namingStatements(pool) }, options.schema) });
  // Statements (statement.ts) on `db` itself run as named statements: each connection plans them once.
  runDirectlyOn(db, { pool });
  return { db, dialect: 'postgres', pool, schema: options.schema };
}

/**
 * The pool as Kysely sees it, its clients running a statement's text (statement.ts preparedName)
 * as that named statement: inside a transaction, where the store's fast lane does not reach, a
 * login's or a sign-up's statements are still parsed and planned once per connection, not on
 * every call. Any other query runs as Kysely sent it. One wrapper per pooled client, so Kysely
 * keeps one connection object per client as it does with the pool itself.
 */
function namingStatements(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((text: unknown, values?: ReadonlyArray<unknown>) => {
      const name = typeof text === 'string' ? preparedName(text) : undefined;
      if (name !== undefined) return client.query({ name, text: text as string, values: values as unknown[] });
      return values === undefined ? client.query(text as never) : client.query(text as string, values as unknown[]);
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    async connect() {
      const client = await pool.connect();
      let facade = wrapped.get(client);
      if (facade === undefined) {
        facade = wrap(client);
        wrapped.set(client, facade);
      }
      return facade;
    },
    end: () => pool.end(),
  };
}

/** PostgreSQL whose introspection (used by the migrator) sees only our schema: postgres-introspector.ts. */
class ScopedPostgresDialect extends PostgresDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresDialect>[0],
    private readonly schema: string | undefined,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaScopedIntrospector(db, this.schema);
  }
}

/** A unique-constraint violation, on either dialect, with the index it hit when known. */
export function uniqueViolation(error: unknown): { constraint: string } | undefined {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return { constraint: e.constraint ?? '' };
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // "UNIQUE constraint failed: accounts.username_skeleton"
    return { constraint: e.message?.split(': ')[1] ?? '' };
  }
  return undefined;
}

/**
 * A foreign-key violation, on either dialect: a row names another that is gone (a race the
 * transaction's own checks and locks should have caught; answered as a refusal, never a 500).
 */
export function foreignKeyViolation(error: unknown): { constraint: string } | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e?.code === '23503') return { constraint: e.constraint ?? '' };
  if (e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { constraint: '' };
  return undefined;
}

/** PostgreSQL SQLSTATE classes and codes that mean "the database is away", not "the request is wrong". */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, or in recovery
  '53300', // too_many_connections
]);
/** Node's socket errors on the way to the database. */
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's own words for a connection it lost or could not open (it gives them no code). */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'terminating connection due to administrator command',
];

/**
 * The database is away (restarting, failing over, unreachable) rather than refusing this query:
 * the request is answered 503 database_unavailable with Retry-After, and the pool reconnects by
 * itself on a later request. Looks through `cause` (a transaction wrapper may hold the original).
 */
export function databaseUnavailable(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e !== 'object') return false;
    const code = typeof e.code === 'string' ? e.code : '';
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_ERRNOS.has(code)) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (UNAVAILABLE_MESSAGES.some((words) => message.includes(words))) return true;
  }
  return false;
}
