// `npm run rotate-secrets` as an operator runs it (decision 110): a second process beside the
// running service, on SQLite and on PostgreSQL. Without the old key it stops and says which
// key is missing; with it, it re-seals everything and says the old key can go.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { serveDatabase } from '../helpers/cli.js';
import type { ServedDatabase } from '../helpers/cli.js';
import { uniqueName } from '../helpers/client.js';

const NEW_KEY = randomBytes(32).toString('base64url');

for (const backend of backends) {
  describe(`npm run rotate-secrets [${backend.name}]`, { skip: backend.skip }, () => {
    let served: ServedDatabase;
    before(async () => {
      served = await serveDatabase(backend);
    });
    after(() => served.cleanup());

    it('needs the old key, re-seals under the new one, then has nothing left to do', async () => {
      // Sign-up seals the recovery key under the service's (old) key.
      await served.client.signUp(uniqueName('alice'));

      const missing = await served.cli('rotate-secrets', [], { SECRET_KEY: NEW_KEY });
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /^stopped: .*SECRET_KEYS_ACCEPTED/m);

      const rotated = await served.cli('rotate-secrets', [], { SECRET_KEY: NEW_KEY, SECRET_KEYS_ACCEPTED: TEST_SECRET_KEY });
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.match(rotated.stdout, /recovery_keys\.key_sealed: 1 re-sealed, 0 changed meanwhile \(left as written\), 0 still under an older key/);
      assert.match(rotated.stdout, /SECRET_KEYS_ACCEPTED can be removed/);

      const again = await served.cli('rotate-secrets', [], { SECRET_KEY: NEW_KEY });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /recovery_keys\.key_sealed: 0 re-sealed/);
    });
  });
}
