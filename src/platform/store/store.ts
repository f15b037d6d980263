import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { accountQueries } from './accounts.js';
import { ceremonyQueries } from './ceremonies.js';
import { openPostgres, openSqlite } from './db.js';
import type { DatabaseHandle, Dialect, OpenOptions } from './db.js';
import { postgresReplayStore, sqliteReplayStore } from './dpop-jtis.js';
import type { ReplayStore } from './dpop-jtis.js';
import { eventQueries } from '../signals/log.js';
import { fieldQueries } from '../../modules/fields/queries.js';
import type { EventQueryOptions, EventRecord } from '../signals/log.js';
import { joinQueries } from '../../modules/join/queries.js';
import { recoveryKeyQueries } from '../../modules/recovery/queries.js';
import { securityLogQueries } from '../../modules/security-log/queries.js';
import { totpQueries } from '../../modules/methods/totp-queries.js';
import { idempotencyQueries } from './idempotency.js';
import { passkeyQueries } from '../../modules/methods/queries.js';
import { refreshTokenQueries } from '../../modules/sessions/refresh-token-queries.js';
import type { Database } from './schema.js';
import { coalescedAuthLookup, sessionQueries } from '../../modules/sessions/queries.js';

export { uniqueViolation } from './db.js';
export type { DatabaseHandle, Dialect } from './db.js';
export type { AccountRecord } from './accounts.js';
export type { PasskeyRecord } from '../../modules/methods/queries.js';
export type { SessionRecord, AuthContextRow } from '../../modules/sessions/queries.js';
export type { CeremonyRecord } from './ceremonies.js';
export type { IdempotencyRecord } from './idempotency.js';
export type { EventRecord } from '../signals/log.js';
export type { TotpRecord } from '../../modules/methods/totp-queries.js';
export type { SecurityLogRecord } from '../../modules/security-log/queries.js';
export type { FieldRecord, FieldChanges } from '../../modules/fields/queries.js';
export type { JoinAttemptRecord } from '../../modules/join/queries.js';

function queries(db: Kysely<Database>, events: EventQueryOptions) {
  return {
    accounts: accountQueries(db),
    passkeys: passkeyQueries(db),
    sessions: sessionQueries(db),
    refreshTokens: refreshTokenQueries(db),
    ceremonies: ceremonyQueries(db),
    idempotency: idempotencyQueries(db),
    events: eventQueries(db, events),
    totp: totpQueries(db),
    recoveryKeys: recoveryKeyQueries(db),
    securityLog: securityLogQueries(db),
    fields: fieldQueries(db),
    join: joinQueries(db),
  };
}

export type StoreQueries = ReturnType<typeof queries>;

export interface Store extends StoreQueries {
  dialect: Dialect;
  /** The DPoP jti cache: outside transactions and off the durable write path. */
  replay: ReplayStore;
  /** Runs fn in one transaction: every write inside commits together or not at all. */
  transaction<T>(fn: (tx: StoreQueries) => Promise<T>): Promise<T>;
  /**
   * Calls listener with the signals appended by each commit, after the commit (never for a
   * rollback), so stream hubs wake only for durable signals. Returns the unsubscribe function.
   */
  onEventsCommitted(listener: (events: EventRecord[]) => void): () => void;
  /** Readiness probe: one round trip to the database. */
  ping(): Promise<void>;
  /** Deletes what has expired (challenges, jtis, idempotency records); returns rows removed. */
  prune(now: number): Promise<number>;
  close(): Promise<void>;
  handle: DatabaseHandle;
}

export function openDatabase(config: Config, options: OpenOptions = {}): DatabaseHandle {
  return config.database.kind === 'postgres' ? openPostgres(config.database.url, options) : openSqlite(config.database.path);
}

export function createStore(handle: DatabaseHandle): Store {
  const { db, dialect } = handle;
  const replay = handle.replayFile ? sqliteReplayStore(handle.replayFile) : postgresReplayStore(db);
  const committed = new Set<(events: EventRecord[]) => void>();
  const publish = (events: EventRecord[]) => {
    for (const listener of committed) {
      try {
        listener(events);
      } catch {
        // The change is committed: a failing listener must not turn it into an error.
      }
    }
  };
  // Outside a transaction every statement commits at once, so an append is published at once.
  const base = queries(db, { dialect, onAppend: (event) => publish([event]) });
  // Over the network, concurrent authentications share a round trip; SQLite is in process and
  // answers each at once.
  if (dialect === 'postgres') base.sessions.findByAccessHash = coalescedAuthLookup(db);
  return {
    ...base,
    dialect,
    handle,
    replay,
    async transaction(fn) {
      const appended: EventRecord[] = [];
      const result = await db.transaction().execute((trx) => fn(queries(trx, { dialect, onAppend: (event) => appended.push(event) })));
      if (appended.length) publish(appended);
      return result;
    },
    onEventsCommitted(listener) {
      committed.add(listener);
      return () => committed.delete(listener);
    },
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
}
