// `npm run admin` (decision 090) as an operator runs it: a second process beside the running
// service, on SQLite (the same file) and on PostgreSQL (the same database). The service refuses
// the locked account on its very next request; `show` prints no secret; exit codes and the
// refusal codes on stderr are stable for scripts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { serveDatabase } from '../helpers/cli.js';
import type { ServedDatabase } from '../helpers/cli.js';
import { uniqueName } from '../helpers/client.js';
import { openSse } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';

for (const backend of backends) {
  describe(`npm run admin [${backend.name}]`, { skip: backend.skip }, () => {
    let served: ServedDatabase;
    before(async () => {
      served = await serveDatabase(backend, { EVENTS_HEARTBEAT_S: '0.2' });
    });
    after(() => served.cleanup());

    it('locks, shows and unlocks an account while the service runs', async () => {
      const alice = await served.client.signUp(uniqueName('alice'));
      assert.equal((await served.client.as(alice, 'GET', '/api/v1/me')).status, 200);

      const locked = await served.cli('admin', ['lock', alice.username, '--reason', 'abuse report 12']);
      assert.equal(locked.code, 0, locked.stderr);
      assert.match(locked.stdout, /locked .*: 1 session\(s\) revoked/);
      expectProblem(await served.client.as(alice, 'GET', '/api/v1/me'), 403, 'account_locked');

      const shown = await served.cli('admin', ['show', alice.username, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const report = JSON.parse(shown.stdout);
      assert.equal(report.status, 'locked');
      assert.equal(report.lock_reason, 'abuse report 12');
      assert.equal(report.passkeys.length, 1);
      assert.ok(!shown.stdout.includes(alice.tokens.access_token) && !shown.stdout.includes(alice.tokens.refresh_token));
      const text = await served.cli('admin', ['show', alice.username]);
      assert.match(text.stdout, /^status\s+locked$/m);

      const again = await served.cli('admin', ['lock', alice.username, '--reason', 'x']);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^account_locked: /m);

      const unlocked = await served.cli('admin', ['unlock', alice.username]);
      assert.equal(unlocked.code, 0, unlocked.stderr);
      // Its sessions stay revoked; a new sign-in works.
      assert.equal((await served.client.as(alice, 'GET', '/api/v1/me')).status, 401);
    });

    it('a lock from the command ends the account\'s open event stream on the running service', async () => {
      const alice = await served.client.signUp(uniqueName('alice'));
      const stream = await openSse(served.client, alice);
      await stream.waitForComment('heartbeat');
      const locked = await served.cli('admin', ['lock', alice.username, '--reason', 'compromised']);
      assert.equal(locked.code, 0, locked.stderr);
      await stream.waitForEnd(3000);
    });

    it('runs with the service\'s own environment, METRICS_PORT included, whose port the service holds', async () => {
      const alice = await served.client.signUp(uniqueName('alice'));
      // The service's API port stands in for its metrics port: taken, as in the service's container.
      const taken = new URL(served.client.baseUrl).port;
      for (const script of ['admin', 'purge'] as const) {
        const result = await served.cli(script, script === 'admin' ? ['show', alice.username] : [], { METRICS_PORT: taken });
        assert.equal(result.code, 0, `${script}: ${result.stderr}`);
      }
    });

    it('refuses bad usage with exit code 2 and unknown names with account_not_found', async () => {
      const usage = await served.cli('admin', ['lock', 'someone']);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--reason/);
      assert.equal((await served.cli('admin', ['frobnicate', 'x'])).code, 2);
      const unknown = await served.cli('admin', ['show', 'nobody-at-all']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^account_not_found: /m);
    });
  });
}
