import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/** The server as `npm start` runs it: starts on the SQLite default, answers, and stops cleanly on SIGTERM. */
describe('the server process', () => {
  it('starts on an embedded SQLite file, serves, and exits 0 on SIGTERM after draining', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vid-server-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: join(dir, 'vid.sqlite'), LOG_LEVEL: 'info', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
          const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
      });
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      assert.equal(ready.status, 200);
      const check = await fetch(`http://127.0.0.1:${port}/api/v1/auth/username/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'newcomer' }),
      });
      const checked = await check.json();
      assert.equal(check.status, 200, JSON.stringify(checked));
      assert.equal(checked.available, true);
      // The database file and the key that seals secrets exist beside each other, the key owner-only.
      assert.ok(statSync(join(dir, 'vid.sqlite')).size > 0);
      assert.equal(statSync(join(dir, 'secret.key')).mode & 0o077, 0);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
