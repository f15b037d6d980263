// What a request costs the database (PostgreSQL), measured over a scenario's window: statements
// (round trips) and their execution time from pg_stat_statements, and the CPU time of the
// database's backend processes from /proc. These decide how many nodes one PostgreSQL carries
// (docs/deploy.md), which a two-core machine cannot show by running more nodes.
//
// pg_stat_statements must be preloaded (shared_preload_libraries = 'pg_stat_statements', then a
// restart); without it the statement figures are reported as unavailable and the CPU figure
// still comes from /proc.
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICKS_PER_SECOND = 100;

export interface DatabaseCost {
  /** pg_stat_statements was there to read. */
  statements: boolean;
  /** Statements executed per request (each one round trip; BEGIN and COMMIT included). */
  statementsPerRequest: number;
  /** Their execution time per request, ms (planning included). */
  execMsPerRequest: number;
  /** CPU time of the database's backends per request, ms (user + system, from /proc). */
  cpuMsPerRequest: number;
  /** The statements behind most of it: calls per request and mean time. */
  top: Array<{ query: string; callsPerRequest: number; meanMs: number }>;
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

async function query<T extends pg.QueryResultRow>(adminUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
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

/** Starts a window on `database`: resets its statement statistics and notes its backends' CPU. */
export async function databaseWindow(adminUrl: string, database: string): Promise<{ stop(requests: number): Promise<DatabaseCost> }> {
  let statements = true;
  try {
    await query(adminUrl, 'create extension if not exists pg_stat_statements');
    await query(adminUrl, 'select pg_stat_statements_reset(0, (select oid from pg_database where datname = $1), 0)', [database]);
  } catch {
    statements = false;
  }
  const before = await backends(adminUrl, database);
  return {
    async stop(requests) {
      const after = await backends(adminUrl, database);
      let ticks = 0;
      for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
      const per = (n: number) => (requests > 0 ? n / requests : Number.NaN);
      let rows: Array<{ query: string; calls: string; exec_ms: number; mean_ms: number }> = [];
      if (statements) {
        rows = await query(
          adminUrl,
          `select query, calls, total_exec_time + total_plan_time as exec_ms, (total_exec_time + total_plan_time) / nullif(calls, 0) as mean_ms
             from pg_stat_statements where dbid = (select oid from pg_database where datname = $1) order by total_exec_time desc`,
          [database],
        );
      }
      const calls = rows.reduce((sum, row) => sum + Number(row.calls), 0);
      const exec = rows.reduce((sum, row) => sum + Number(row.exec_ms), 0);
      return {
        statements,
        statementsPerRequest: per(calls),
        execMsPerRequest: per(exec),
        cpuMsPerRequest: per((ticks / TICKS_PER_SECOND) * 1000),
        top: rows.slice(0, 6).map((row) => ({ query: row.query.replace(/\s+/g, ' ').slice(0, 140), callsPerRequest: per(Number(row.calls)), meanMs: Number(row.mean_ms) })),
      };
    },
  };
}
