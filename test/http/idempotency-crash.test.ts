// Decision 002: the answer to a request with an Idempotency-Key is committed in the transaction of
// the change it answers. Here the server is killed (SIGKILL) while keyed creates are in flight,
// every key's lease is then run out (as a retry a minute later would find it), and every key is
// retried with its body: each change exists exactly once, acknowledged or not.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { backends } from '../helpers/backends.js';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import { serveDatabase, startServerProcess } from '../helpers/cli.js';
import type { ServedDatabase } from '../helpers/cli.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';

const FIELDS = '/api/v1/me/fields';
const ROUNDS = 3;
const PER_ROUND = 60;

/** What a retry a minute after the crash finds: every in-flight lease has run out. */
async function runOutLeases(served: ServedDatabase): Promise<void> {
  if (served.sqlitePath) {
    const db = new SQLite(served.sqlitePath);
    db.prepare(`update idempotency_records set locked_until = 0 where state = 'in_flight'`).run();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: served.env.DATABASE_URL });
  await client.connect();
  await client.query(`update idempotency_records set locked_until = 0 where state = 'in_flight'`);
  await client.end();
}

async function clientFor(baseUrl: string): Promise<TestClient> {
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
  return new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), Date.now);
}

for (const backend of backends) {
  describe(`Idempotency-Key across a crash [${backend.name}]`, { skip: backend.skip }, () => {
    let served: ServedDatabase;
    before(async () => {
      served = await serveDatabase(backend);
      await served.stop();
    });
    after(() => served.cleanup());

    it('creates each keyed field exactly once when the server is killed mid-write and every key is retried', async () => {
      let server = await startServerProcess(served.env);
      let client = await clientFor(server.baseUrl);
      const device: Device = await client.signUp(uniqueName('crash'));
      const sent: Array<{ key: string; value: string; acknowledged: boolean }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const batch = Array.from({ length: PER_ROUND }, (_, i) => ({ key: randomUUID(), value: `crash ${round}-${i}`, acknowledged: false }));
        sent.push(...batch);
        let acknowledgements = 0;
        let killed!: () => void;
        const killedOnce = new Promise<void>((resolve) => (killed = resolve));
        const requests = batch.map(async (entry, i) => {
          // Spread over a few milliseconds, so the kill lands between a commit and its answer.
          await new Promise((resolve) => setTimeout(resolve, i % 20));
          try {
            const res = await client.as(device, 'POST', FIELDS, { body: { type: 'nickname', value: entry.value }, headers: { 'idempotency-key': entry.key }, unchecked: true });
            if (res.status === 201) {
              entry.acknowledged = true;
              if (++acknowledgements === 5) killed();
            }
          } catch {
            // The connection died with the server: not acknowledged.
          }
        });
        await Promise.race([killedOnce, Promise.all(requests)]);
        server.child.kill('SIGKILL');
        await server.stop();
        await Promise.all(requests);
        await runOutLeases(served);
        server = await startServerProcess(served.env);
        client = await clientFor(server.baseUrl);
        for (const entry of batch) {
          const retry = await client.as(device, 'POST', FIELDS, { body: { type: 'nickname', value: entry.value }, headers: { 'idempotency-key': entry.key } });
          assert.equal(retry.status, 201, `${entry.value}: ${retry.status} ${JSON.stringify(retry.body)}`);
          assert.equal(retry.body.value, entry.value);
        }
      }
      const listed = await client.as(device, 'GET', `${FIELDS}?type=nickname&limit=200`);
      assert.equal(listed.status, 200);
      const counts = new Map<string, number>();
      for (const field of listed.body.data) counts.set(field.value, (counts.get(field.value) ?? 0) + 1);
      const duplicated = [...counts].filter(([, n]) => n > 1).map(([value, n]) => `${value} ×${n}`);
      assert.deepEqual(duplicated, [], 'a retried key created its field again');
      for (const entry of sent) assert.equal(counts.get(entry.value), 1, `${entry.value} (acknowledged: ${entry.acknowledged}) is missing after its retry`);
      await server.stop();
    });
  });
}
