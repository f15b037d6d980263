// What a request costs the database (PostgreSQL), measured over a scenario's window: statements
// (round trips) and their execution time from pg_stat_statements, transactions from
// pg_stat_database, and the CPU time of the database's backend processes from /proc. These decide
// how many nodes one PostgreSQL carries (docs/deploy.md), which a two-core machine cannot show by
// running more nodes.
//
// pg_stat_statements is created in the bench's own database (never in the server's others), and
// counts only when the server preloads it (shared_preload_libraries = 'pg_stat_statements', then
// a restart; pg_stat_statements.track_planning = on adds planning). Without it the statement
// figures are reported as unavailable, with the reason, and the CPU figure still comes from /proc.
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICKS_PER_SECOND = 100;
/** PostgreSQL's backends flush their statistics at most this often (PGSTAT_MIN_INTERVAL), plus a margin. */
const STATS_FLUSH_MS = 1_300;

export interface DatabaseCost {
  /** pg_stat_statements was there to read. */
  statements: boolean;
  /** Why it was not (not preloaded, not installed), when it was not. */
  unavailable?: string;
  /** Statement calls per request: each one round trip (BEGIN and COMMIT included). */
  statementsPerRequest: number;
  /** Distinct statements the requests ran (pg_stat_statements entries with a call). */
  distinctStatements: number;
  /** Their execution time per request, ms (planning included when track_planning is on). */
  execMsPerRequest: number;
  /** Plans made per request (track_planning on), undefined when planning is not tracked. */
  plansPerRequest?: number;
  /** Transactions committed or rolled back per request (pg_stat_database, always there). */
  transactionsPerRequest: number;
  /** CPU time of the database's backends per request, ms (user + system, from /proc). */
  cpuMsPerRequest: number;
  /** The statements behind most of the time: calls per request, mean and total time per request. */
  top: Array<{ query: string; callsPerRequest: number; meanMs: number; msPerRequest: number }>;
}

function cpuTicks(pid: number): number {
  try {
    // /proc/<pid>/stat: fields 14 and 15 (utime, stime) after the ")" that ends the command name.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function backends(adminUrl: string, database: string): Promise<Map<number, number>> {
  const rows = await query<{ pid: number }>(adminUrl, 'select pid from pg_stat_activity where datname = $1', [database]);
  return new Map(rows.map((row) => [row.pid, cpuTicks(row.pid)]));
}

async function transactions(adminUrl: string, database: string): Promise<number> {
  const [row] = await query<{ n: string }>(adminUrl, 'select xact_commit + xact_rollback as n from pg_stat_database where datname = $1', [database]);
  return Number(row?.n ?? Number.NaN);
}

/** The URL of `database` on the server `adminUrl` names. */
function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Makes pg_stat_statements readable from `database` and resets its figures for that database;
 * answers why it cannot be read, or undefined when it can.
 */
async function statementsReady(adminUrl: string, database: string): Promise<string | undefined> {
  const [preload] = await query<{ setting: string }>(adminUrl, `select setting from pg_settings where name = 'shared_preload_libraries'`);
  if (!/(^|[\s,])pg_stat_statements($|[\s,])/.test(preload?.setting ?? '')) {
    return `pg_stat_statements is not in shared_preload_libraries (it is ${JSON.stringify(preload?.setting ?? '')})`;
  }
  const url = databaseUrl(adminUrl, database);
  try {
    await query(url, 'create extension if not exists pg_stat_statements');
    await query(url, 'select pg_stat_statements_reset(0, (select oid from pg_database where datname = $1), 0)', [database]);
  } catch (error) {
    return `pg_stat_statements could not be used: ${(error as Error).message}`;
  }
  return undefined;
}

/** Starts a window on `database`: resets its statement statistics and notes its backends' CPU and transactions. */
export async function databaseWindow(adminUrl: string, database: string): Promise<{ stop(requests: number): Promise<DatabaseCost> }> {
  const unavailable = await statementsReady(adminUrl, database).catch((error: Error) => `pg_stat_statements could not be checked: ${error.message}`);
  const statements = unavailable === undefined;
  const transactionsBefore = await transactions(adminUrl, database);
  const before = await backends(adminUrl, database);
  return {
    async stop(requests) {
      const after = await backends(adminUrl, database);
      // A backend reports its transactions to pg_stat_database at most once a second, and once it
      // is idle: the load has stopped, so a little over a second later every one has.
      await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
      const transactionsAfter = await transactions(adminUrl, database);
      let ticks = 0;
      for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
      const per = (n: number) => (requests > 0 ? n / requests : Number.NaN);
      let rows: Array<{ query: string; calls: string; plans: string | null; exec_ms: number; mean_ms: number }> = [];
      let planning = false;
      if (statements) {
        const url = databaseUrl(adminUrl, database);
        const [track] = await query<{ setting: string }>(url, `select setting from pg_settings where name = 'pg_stat_statements.track_planning'`);
        planning = track?.setting === 'on';
        // Our own reading of the view is left out: it is not the requests'.
        rows = await query(
          url,
          `select query, calls, plans, total_exec_time + total_plan_time as exec_ms, (total_exec_time + total_plan_time) / nullif(calls, 0) as mean_ms
             from pg_stat_statements
            where dbid = (select oid from pg_database where datname = $1) and calls > 0
              and query not like '%pg_stat_statements%' and query not like '%pg_settings%'
            order by total_exec_time + total_plan_time desc`,
          [database],
        );
      }
      const calls = rows.reduce((sum, row) => sum + Number(row.calls), 0);
      const exec = rows.reduce((sum, row) => sum + Number(row.exec_ms), 0);
      const plans = rows.reduce((sum, row) => sum + Number(row.plans ?? 0), 0);
      return {
        statements,
        unavailable,
        statementsPerRequest: per(calls),
        distinctStatements: rows.length,
        execMsPerRequest: per(exec),
        plansPerRequest: planning ? per(plans) : undefined,
        transactionsPerRequest: per(transactionsAfter - transactionsBefore),
        cpuMsPerRequest: per((ticks / TICKS_PER_SECOND) * 1000),
        top: rows.slice(0, 8).map((row) => ({
          query: row.query.replace(/\s+/g, ' ').slice(0, 140),
          callsPerRequest: per(Number(row.calls)),
          meanMs: Number(row.mean_ms),
          msPerRequest: per(Number(row.exec_ms)),
        })),
      };
    },
  };
}
