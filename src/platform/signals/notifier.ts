import type pg from 'pg';
import { loadPg } from '../optional-deps.js';
import type { Store } from '../store/store.js';
import { FOLLOWERS_PREFIX, SIGNALS_CHANNEL_SQL } from './log.js';

/**
 * Wake-ups for stream hubs: "account X has new signals", or "a card of owner O changed" (its
 * followers read their feeds). They carry no signal (the hub reads the logs), so losing or
 * repeating one costs at most a read, never a wrong delivery.
 */
export interface WakeTarget {
  wake(accountId: string): void;
  wakeFollowers(ownerId: string): void;
  /** After a gap in notifications (listener reconnected): re-read for every account. */
  wakeAll(): void;
}

export interface Notifier {
  start(target: WakeTarget): Promise<void>;
  stop(): Promise<void>;
}

/** One node: the store tells us after each commit that appended signals. */
export function inProcessNotifier(store: Store): Notifier {
  let unsubscribe: (() => void) | undefined;
  return {
    async start(target) {
      unsubscribe = store.onSignalsCommitted((records, followed) => {
        for (const accountId of new Set(records.map((r) => r.account_id))) target.wake(accountId);
        for (const ownerId of new Set(followed)) target.wakeFollowers(ownerId);
      });
    },
    async stop() {
      unsubscribe?.();
    },
  };
}

/**
 * One SQLite file, several processes: the operator's commands (`npm run admin -- lock`, `purge`)
 * commit to the file the service serves, and no in-process listener hears of it. SQLite's data
 * version changes whenever another connection commits; polled a few times a second (a read of
 * shared memory), a change wakes every stream, which reads the log past its cursor and so ends
 * the streams of a session the command revoked (decision 090).
 */
export function otherProcessNotifier(dataVersion: () => number, intervalMs = 250): Notifier {
  let timer: NodeJS.Timeout | undefined;
  return {
    async start(target) {
      let seen = dataVersion();
      timer = setInterval(() => {
        const now = dataVersion();
        if (now === seen) return;
        seen = now;
        target.wakeAll();
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
    },
  };
}

/** The listener connection's application_name (pg_stat_activity shows who holds it). */
export const LISTENER_NAME = 'vid-events-listener';

export interface PostgresNotifierOptions {
  pool: pg.Pool;
  onError(error: unknown): void;
  /** First reconnect delay; doubles up to 30 s. */
  retryMs?: number;
}

/**
 * Across nodes: `append` queues `pg_notify(<schema channel>, account_id)` in the change's
 * transaction (and a card change `pg_notify(<channel>, 'followers:' || owner_id)`, once
 * whatever the owner's audience, decision 220), which PostgreSQL delivers to every listening node at commit (never for a
 * rollback). This listener holds one dedicated connection (not from the pool, which would
 * lose the LISTEN when it recycles the client), made with the pool's settings so it sees the
 * same schema. When that connection drops it reconnects with backoff and wakes every stream,
 * since notifications sent meanwhile are lost.
 */
export function postgresNotifier(options: PostgresNotifierOptions): Notifier {
  const retryMs = options.retryMs ?? 500;
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = retryMs;

  async function connect(target: WakeTarget, first: boolean): Promise<void> {
    const { connectionString, options: startup, host, port, user, password, database, ssl } = options.pool.options as pg.PoolConfig;
    const { Client } = loadPg();
    const next = new Client({ connectionString, options: startup, host, port, user, password, database, ssl, application_name: LISTENER_NAME });
    next.on('error', () => reconnect(target, next));
    next.on('end', () => reconnect(target, next));
    next.on('notification', (message) => {
      const payload = message.payload;
      if (!payload) return;
      if (payload.startsWith(FOLLOWERS_PREFIX)) target.wakeFollowers(payload.slice(FOLLOWERS_PREFIX.length));
      else target.wake(payload);
    });
    try {
      await next.connect();
      const { rows } = await next.query<{ channel: string }>(`select ${SIGNALS_CHANNEL_SQL} as channel`);
      await next.query(`listen "${rows[0]!.channel}"`);
    } catch (error) {
      next.removeAllListeners('end');
      next.end().catch(() => {});
      if (first) throw error;
      options.onError(error);
      schedule(target);
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    delay = retryMs;
    if (!first) target.wakeAll();
  }

  function schedule(target: WakeTarget): void {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(target, false);
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, 30_000);
  }

  function reconnect(target: WakeTarget, failed: pg.Client): void {
    if (stopped || client !== failed) return;
    client = undefined;
    failed.removeAllListeners('end');
    failed.end().catch(() => {});
    options.onError(new Error('the LISTEN connection for event signals was lost; reconnecting'));
    schedule(target);
  }

  return {
    start: (target) => connect(target, true),
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
