// What a day-step uses of each resource that could give out first (bench/day.ts): the nodes'
// CPU (from /proc, at the player's window marks), the database's backends' CPU (pg-stats.ts),
// Redis (its own INFO counters: commands and CPU), the card-change log's head (PostgreSQL
// backends seen waiting on a lock while running a statement on card_change_log_head, sampled
// every 50 ms from pg_stat_activity), and the memory each open stream adds to a node's RSS.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * Seconds a process's main thread (a node's event loop) has spent runnable but waiting for a
 * core (/proc/<pid>/schedstat, second field, ns): what other processes on its core cost it.
 * NaN off Linux.
 */
export function runQueueSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return Number.NaN;
  }
}

/** Redis's counters: commands processed and CPU seconds (INFO); undefined when unreachable. */
export async function redisCounters(url: string): Promise<{ commands: number; cpuSeconds: number } | undefined> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    const info = await redis.info();
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    return { commands: field('total_commands_processed'), cpuSeconds: field('used_cpu_sys') + field('used_cpu_user') };
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

export interface HeadWaits {
  samples: number;
  /** Samples in which at least one backend waited on a lock in a statement on the log's head. */
  withWaiter: number;
  /** Waiting backends, on average over the samples. */
  meanWaiters: number;
}

/**
 * Samples, until stop(), the backends of `databaseUrl`'s database waiting on a lock (row or
 * tuple: wait_event_type 'Lock') in a statement naming card_change_log_head, the one counter
 * every card edit updates.
 */
export async function sampleHeadWaits(databaseUrl: string, everyMs = 50): Promise<{ stop(): Promise<HeadWaits> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let samples = 0;
  let withWaiter = 0;
  let waiters = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock' and query ilike '%card_change_log_head%'`,
      );
      const n = Number(rows[0]!.n);
      samples++;
      waiters += n;
      if (n > 0) withWaiter++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop.catch(() => {});
      await client.end().catch(() => {});
      return { samples, withWaiter, meanWaiters: samples ? waiters / samples : Number.NaN };
    },
  };
}
