import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { after, describe, it } from 'node:test';

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vid-server-'));
  dirs.push(dir);
  return dir;
}

/** The environment of a server started with `npm start` and `env`: PUBLIC_ORIGIN left at its default unless given. */
function serverEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '', DRAIN_DELAY_S: '0' };
  delete base.PUBLIC_ORIGIN;
  return { ...base, ...env };
}

/** src/server.ts in its own process, as `npm start` runs it (there from the bundle). */
function startServer(env: Record<string, string>): { child: Child; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: serverEnv({ PORT: '0', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return watch(child);
}

function watch(child: Child): { child: Child; output: () => string; exited: Promise<number | null> } {
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  return { child, output: () => stdout, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

/** Resolves with the first match of `pattern` in the output, or rejects with it all when the process exits first. */
function waitFor(started: ReturnType<typeof watch>, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(started.output());
      if (match) {
        started.child.stdout.off('data', check);
        resolve(match);
      }
    };
    started.child.stdout.on('data', check);
    check();
    void started.exited.then((code) => reject(new Error(`exited with ${code} before ${pattern}: ${started.output()}`)));
  });
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A port nobody listens on now (the test's own listener found it and let it go). */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const ANSI = /\x1b\[[0-9;]*m/g;

describe('the server process', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('starts on an embedded SQLite file, says where it is ready, logs one JSON record per request, and exits 0 on SIGTERM after draining', async () => {
    const dir = dataDir();
    const server = startServer({ SQLITE_PATH: join(dir, 'vid.sqlite'), PUBLIC_ORIGIN: 'https://id.example.test' });
    try {
      const [, port] = await waitFor(server, /listening on 127\.0\.0\.1:(\d+)/);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      assert.equal(ready.status, 200);
      const check = await fetch(`http://127.0.0.1:${port}/api/v1/auth/username/check?from=test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'newcomer' }),
      });
      const checked = await check.json();
      assert.equal(check.status, 200, JSON.stringify(checked));
      assert.equal(checked.available, true);
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/nothing-here?token=secret`)).status, 404);
      // The database file and the key that seals secrets exist beside each other, the key owner-only.
      assert.ok(statSync(join(dir, 'vid.sqlite')).size > 0);
      assert.equal(statSync(join(dir, 'secret.key')).mode & 0o077, 0);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);

      // Not a terminal: pino's JSON, one record a line, and one record per request.
      const records = server.output().trim().split('\n').map((line) => JSON.parse(line));
      const messages = records.map((record) => record.msg);
      assert.deepEqual(messages.filter((msg) => /ready at/.test(msg)), [`VID is ready at https://id.example.test (listening on 127.0.0.1:${port}; SQLite ${join(dir, 'vid.sqlite')})`]);
      assert.ok(!messages.some((msg) => /Server listening|incoming request|request completed/.test(msg)), messages.join('\n'));
      const requests = records.filter((record) => record.req);
      assert.deepEqual(requests.map((record) => record.msg.replace(/ [\d.]+ ms/, '')), ['GET /health/ready 200', 'POST /api/v1/auth/username/check 200', 'GET /api/v1/nothing-here 404 not_found']);
      // The query string is never logged (share-link tokens travel in one).
      assert.deepEqual(requests[1].req, { method: 'POST', path: '/api/v1/auth/username/check', ip: '127.0.0.1' });
      assert.equal(requests[1].res.statusCode, 200);
      assert.equal(typeof requests[1].responseTime, 'number');
      // A refusal is said in its request's record, not in one of its own.
      assert.deepEqual(requests[2].refusal, { code: 'not_found', detail: 'no route for GET /api/v1/nothing-here' });
      assert.equal(records.length, requests.length + 2, messages.join('\n'));
      assert.ok(!server.output().includes('secret'));
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('on a terminal writes one readable line per request and stops on Ctrl-C', async () => {
    const dir = dataDir();
    const port = await freePort();
    // script(1) runs the server on a pseudo-terminal, as a person's shell does.
    const command = `exec ${JSON.stringify(process.execPath)} --import tsx src/server.ts`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: serverEnv({ PORT: String(port), SQLITE_PATH: join(dir, 'vid.sqlite'), TERM: 'xterm' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const server = watch(child);
    try {
      await waitFor(server, /VID is ready at/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/health/ready`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/nothing-here`)).status, 404);
      await waitFor(server, /nothing-here 404 [\d.]+ ms not_found/);
      child.stdin.write('\x03');
      assert.equal(await server.exited, 0);

      const lines = server.output().replace(ANSI, '').split(/\r?\n/).filter((line) => line.trim());
      const ready = lines.filter((line) => line.includes('ready at'));
      assert.equal(ready.length, 1, lines.join('\n'));
      assert.match(ready[0]!, new RegExp(`^\\[\\d{2}:\\d{2}:\\d{2}\\] INFO: VID is ready at http://localhost:${port} \\(listening on 127\\.0\\.0\\.1:${port}; SQLite .+vid\\.sqlite\\)$`));
      const requests = lines.filter((line) => / (GET|POST) /.test(line));
      assert.equal(requests.length, 2, lines.join('\n'));
      assert.match(requests[0]!, /^\[\d{2}:\d{2}:\d{2}\] INFO: GET \/health\/ready 200 [\d.]+ ms$/);
      assert.match(requests[1]!, /^\[\d{2}:\d{2}:\d{2}\] INFO: GET \/api\/v1\/nothing-here 404 [\d.]+ ms not_found \(no route for GET \/api\/v1\/nothing-here\)$/);
      assert.ok(!lines.some((line) => line.includes('{"level"')), lines.join('\n'));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses a port another process holds in one line, exits 1 and lets its SQLite file go', async () => {
    const dir = dataDir();
    const holder = createServer();
    const port = await listening(holder);
    try {
      const server = startServer({ PORT: String(port), SQLITE_PATH: join(dir, 'vid.sqlite') });
      let stderr = '';
      server.child.stderr.on('data', (chunk) => (stderr += chunk));
      assert.equal(await server.exited, 1);
      assert.equal(stderr, `Port ${port} is in use; set PORT=${port + 1} (or another free port) or stop the other process\n`);
      assert.ok(!server.output().includes('ready at'), server.output());
      // Released, so the next start on the same file is not refused as "in use".
      assert.equal(existsSync(join(dir, 'vid.sqlite.owner')), false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
