// The examples a client developer runs first (examples/signup-login.ts, client/examples/node.ts),
// run as they are documented: their own process, against a started server at its public origin.
import { freePort } from '../helpers/ports.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { projectRoot } from '../../src/platform/paths.js';
import { testConfig } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';


/** `npx tsx <example> <origin> <username>`: resolves with its exit code and output. */
function runExample(path: string, origin: string, username: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path, origin, username], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

for (const backend of backends) {
  describe(`the examples against a running server [${backend.name}]`, { skip: backend.skip }, () => {
    let origin: string;
    let close: () => Promise<void>;
    before(async () => {
      const database = await backend.open();
      const port = await freePort();
      // The public origin the examples are given: proofs' htu and the passkeys' origin are checked against it.
      origin = `http://localhost:${port}`;
      const { app } = await buildApp({ config: testConfig(database.databaseUrl, { PUBLIC_ORIGIN: origin }), store: database.store, logger: false });
      await app.listen({ host: 'localhost', port });
      close = async () => {
        await app.close();
        await database.cleanup();
      };
    });
    after(() => close());

    it('examples/signup-login.ts signs up, renews, logs out and logs in again with the client', async () => {
      const username = uniqueName('example');
      const { code, output } = await runExample('examples/signup-login.ts', origin, username);
      assert.equal(code, 0, output);
      assert.match(output, new RegExp(`signed up as ${username} - session ses_`));
      assert.match(output, new RegExp(`me: ${username} version 1`));
      assert.match(output, /renewed; session ses_/);
      assert.match(output, /logged in again; sessions: 1\n/);
      assert.match(output, /logged out\n$/);
    });

    it('client/examples/node.ts follows a signal and reads a typed problem', async () => {
      const username = uniqueName('example');
      const { code, output } = await runExample('client/examples/node.ts', origin, username);
      assert.equal(code, 0, output);
      assert.match(output, new RegExp(`signed up as ${username}`));
      assert.match(output, /signal \S+/);
      assert.match(output, /typed problem: 404 session_not_found/);
      assert.match(output, /logged out\n$/);
    });

    it('examples/signup-login.ts says a refusal in one line and exits 1', async () => {
      const { code, output } = await runExample('examples/signup-login.ts', origin, 'x');
      assert.equal(code, 1, output);
      assert.match(output, /^4\d\d [a-z_]+: .+$/m);
    });
  });
}
