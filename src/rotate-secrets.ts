import { buildApp } from './app.js';
import { loadCommandConfig } from './platform/config.js';
import { SealedUnderUnknownKey } from './platform/crypto/secret-box.js';

/**
 * `npm run rotate-secrets`: re-seals every sealed value (TOTP secrets, recovery keys, share-link
 * tokens and their lookup hashes, idempotent replies) under SECRET_KEY, the current key, while
 * the service keeps serving, in small transactions. Start every node with the new SECRET_KEY and
 * the old key in SECRET_KEYS_ACCEPTED first; when this reports nothing remaining, the old key
 * can be dropped (docs/operations.md, "Rotating the secret key"; decision 110).
 */
const config = loadCommandConfig();
const vid = await buildApp({ config, logger: false });
try {
  const started = Date.now();
  const reports = await vid.rotateSecrets({ onBatch: (column, done) => console.log(`${column}: ${done} re-sealed so far`) });
  let remaining = 0;
  for (const report of reports) {
    remaining += report.remaining;
    console.log(`${report.column}: ${report.resealed} re-sealed, ${report.skipped} changed meanwhile (left as written), ${report.remaining} still under an older key`);
  }
  console.log(`done in ${Date.now() - started} ms`);
  if (remaining > 0) {
    console.error(`${remaining} value(s) are still under an older key: a node may still be sealing with it. Restart every node with the new SECRET_KEY, then run this again.`);
    process.exitCode = 1;
  } else {
    console.log('Everything is sealed under the current key: the keys in SECRET_KEYS_ACCEPTED can be removed.');
  }
} catch (error) {
  // Nothing is lost: batches already done stay done, the rest is still under its old key.
  if (error instanceof SealedUnderUnknownKey) console.error(`stopped: ${error.message}`);
  else console.error(`stopped: ${(error as Error).message} (a value could not be opened: is every older key in SECRET_KEYS_ACCEPTED?)`);
  process.exitCode = 1;
} finally {
  await vid.app.close();
}
