// POST /auth/recovery/begin is no username oracle by its timing (decision 009): a refusal for an
// unknown username does the same work as one for a known username with a wrong key (the same
// reads, one transaction with one write, the same hashing), so the two take the same time, and
// their answers are the same bytes apart from the request id.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { generateRecoveryKey } from '../../src/platform/crypto/recovery-key.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const BEGIN = '/api/v1/auth/recovery/begin';
const ROUNDS = 200;
const WARM_UP = 20;
/** Generous for a busy 2-core machine; the gap this guards against was 2x. */
const MAX_RATIO = 1.5;

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  ms: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

for (const backend of backends) {
  describe(`recovery begin: no username oracle in timing or bytes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let known: string;
    before(async () => {
      t = await startTestApp(backend, { RECOVERY_PER_CLIENT_PER_HOUR: '100000', RECOVERY_KEY_HOLDER_PER_HOUR: '100000' });
      known = (await t.client.signUp(uniqueName('timed'))).username;
    });
    after(() => t.close());

    async function begin(username: string): Promise<Answer> {
      const body = JSON.stringify({ username, recovery_key: generateRecoveryKey() });
      const started = performance.now();
      const res = await fetch(t.baseUrl + BEGIN, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await res.text();
      const ms = performance.now() - started;
      return { status: res.status, headers: Object.fromEntries(res.headers), text, ms };
    }

    it('answers a known username with a wrong key and an unknown username with the same bytes, apart from the request id', async () => {
      const a = await begin(known);
      const b = await begin(uniqueName('nobody'));
      assert.equal(a.status, 403);
      assert.equal(b.status, 403);
      const parsedA = JSON.parse(a.text);
      const parsedB = JSON.parse(b.text);
      assert.equal(parsedA.code, 'recovery_refused');
      assert.notEqual(parsedA.request_id, parsedB.request_id);
      assert.equal(a.text.replace(parsedA.request_id, ''), b.text.replace(parsedB.request_id, ''));
      const varying = new Set(['date', 'vid-request-id', 'ratelimit-remaining', 'ratelimit', 'ratelimit-reset']);
      const stable = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)));
      assert.deepEqual(stable(a.headers), stable(b.headers));
      assert.deepEqual(Object.keys(a.headers).sort(), Object.keys(b.headers).sort());
    });

    it(`takes as long for an unknown username as for a known one (medians of ${ROUNDS} alternating requests within ${MAX_RATIO}x)`, async (context) => {
      for (let i = 0; i < WARM_UP; i++) {
        await begin(known);
        await begin(uniqueName('nobody'));
      }
      const knownMs: number[] = [];
      const unknownMs: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        // Alternating, and each pair in either order, so drift in the machine's load hits both alike.
        const pair = i % 2 === 0 ? [known, uniqueName('nobody')] : [uniqueName('nobody'), known];
        for (const name of pair) {
          const answer = await begin(name);
          assert.equal(answer.status, 403, answer.text);
          (name === known ? knownMs : unknownMs).push(answer.ms);
        }
      }
      const k = median(knownMs);
      const u = median(unknownMs);
      const ratio = Math.max(k, u) / Math.min(k, u);
      context.diagnostic(`median known ${k.toFixed(2)} ms, unknown ${u.toFixed(2)} ms: ${ratio.toFixed(2)}x`);
      assert.ok(ratio < MAX_RATIO, `median known ${k.toFixed(2)} ms, unknown ${u.toFixed(2)} ms: ${ratio.toFixed(2)}x`);
    });
  });
}
