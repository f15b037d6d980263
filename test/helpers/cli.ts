// The operator's commands (`npm run admin`, `backup`, `restore`, `rotate-secrets`) run as child
// processes against a database a running service also serves: a SQLite file in a temporary
// directory, or a PostgreSQL database of its own (CREATE DATABASE, dropped afterwards).
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { projectRoot } from '../../src/platform/paths.js';
import { PUBLIC_ORIGIN, TEST_SECRET_KEY, testConfig } from './app.js';
import type { TestBackend } from './backends.js';
import { TestClient } from './client.js';
import { commandArgs } from './commands.js';
import { createContractChecker } from './contract.js';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ServedDatabase {
  /** The environment a command needs to reach the same database with the same key. */
  env: Record<string, string>;
  /** The SQLite file, on SQLite. */
  sqlitePath?: string;
  dir: string;
  client: TestClient;
  /** Runs the operator's command `script` (its bundle, as `npm run <script>` does) with the database's environment (plus `extra`). */
  cli(script: string, args: string[], extra?: Record<string, string>): Promise<CliResult>;
  /** Stops the service (the database stays until cleanup). */
  stop(): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * The service as `npm start` runs it (src/server.ts in its own process), on `env`'s database;
 * resolves with its base URL once it listens, and a stop that sends SIGTERM and waits.
 */
export async function startServerProcess(env: Record<string, string>): Promise<{ baseUrl: string; child: ChildProcess; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: projectRoot,
    // Load shedding by event-loop delay is off, as in the in-process test apps (helpers/app.ts): a
    // busy test machine is not an overloaded server. A test of shedding sets its own.
    env: { ...process.env, DATABASE_URL: '', PUBLIC_ORIGIN, DRAIN_DELAY_S: '0', SHED_MAX_EVENT_LOOP_DELAY_MS: '0', ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_AUTH_PER_MIN: '100000', RATE_LIMIT_USER_PER_MIN: '100000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}: ${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A running service (system clock) over a fresh database of the backend, for child-process commands. */
export async function serveDatabase(backend: TestBackend, extraEnv: Record<string, string> = {}): Promise<ServedDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'vid-cli-'));
  let env: Record<string, string>;
  let dropDatabase = async () => {};
  if (backend.name === 'sqlite') {
    env = { SQLITE_PATH: join(dir, 'vid.sqlite') };
  } else {
    const base = process.env.TEST_DATABASE_URL as string;
    const name = `vid_cli_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    env = { DATABASE_URL: url.toString() };
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  env = { ...env, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'warn', ...extraEnv };
  const config = testConfig(undefined, env);
  const { app } = await buildApp({ config, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
  };
  return {
    env,
    sqlitePath: env.SQLITE_PATH,
    dir,
    client: new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(app.swagger()))), Date.now),
    async cli(script, args, extra = {}) {
      try {
        const { stdout, stderr } = await run(process.execPath, [...commandArgs(script), ...args], {
          cwd: projectRoot,
          env: { ...process.env, ...env, ...extra },
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
      }
    },
    stop,
    async cleanup() {
      await stop();
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
