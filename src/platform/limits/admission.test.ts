import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createManualClock } from '../clock.js';
import { stepwiseAdmission } from './admission.js';
import type { Admission, AdmissionRequest, WindowToCount } from './admission.js';
import { createBreaker } from './breaker.js';
import { memoryCounters, redisCounters, windowKey } from './counters.js';
import { memoryReplayCache, proofKey, redisReplayCache } from './replay-cache.js';
import { redisAdmission } from './redis-admission.js';
import { resilientAdmission } from './shared-state.js';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 10);

function windows(prefix: string, limits: number[]): WindowToCount[] {
  const start = NOW - (NOW % MINUTE);
  return limits.map((limit, i) => ({ key: `${prefix}:${i}`, windowStart: start, windowEnd: start + MINUTE, limit }));
}

/** The same requests through an admission: what each answered. */
async function run(admission: Admission, requests: AdmissionRequest[]): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const request of requests) answers.push(await admission.admit(request));
  return answers;
}

/** A replay, then counting until the first window refuses, then the second. */
function script(prefix: string, jti: string): AdmissionRequest[] {
  const counted = windows(prefix, [2, 3]);
  const proof = (id: string) => ({ jti: id, until: NOW + 70_000 });
  return [
    { proof: proof(jti), windows: counted, now: NOW },
    { proof: proof(jti), windows: counted, now: NOW },
    { proof: proof(`${jti}b`), windows: counted, now: NOW },
    { proof: proof(`${jti}c`), windows: counted, now: NOW },
    { proof: proof(`${jti}d`), windows: counted, now: NOW },
    { windows: windows(prefix, [100, 3]).slice(1), now: NOW },
  ];
}

const EXPECTED = [
  { replayed: false, hits: [{ count: 1, resetAt: NOW - (NOW % MINUTE) + MINUTE }, { count: 1, resetAt: NOW - (NOW % MINUTE) + MINUTE }] },
  { replayed: true, hits: [] },
  { replayed: false, hits: [{ count: 2, resetAt: NOW - (NOW % MINUTE) + MINUTE }, { count: 2, resetAt: NOW - (NOW % MINUTE) + MINUTE }] },
  // Past the first window's limit: the second is not counted.
  { replayed: false, hits: [{ count: 3, resetAt: NOW - (NOW % MINUTE) + MINUTE }] },
  { replayed: false, hits: [{ count: 4, resetAt: NOW - (NOW % MINUTE) + MINUTE }] },
  { replayed: false, hits: [{ count: 3, resetAt: NOW - (NOW % MINUTE) + MINUTE }] },
];

describe('admission: a proof id and the windows of one request at once', () => {
  it('refuses a replay before counting, and stops counting at the first window past its limit', async () => {
    const clock = createManualClock(NOW);
    assert.deepEqual(await run(stepwiseAdmission(memoryReplayCache(clock), memoryCounters()), script('m', 'jti')), EXPECTED);
  });

  it('falls back when the shared admission fails, and goes one call at a time for a window after', async () => {
    let now = 0;
    const breaker = createBreaker({ connected: () => true, now: () => now, openMs: 100 });
    const calls: string[] = [];
    const named = (name: string): Admission => ({
      async admit() {
        calls.push(name);
        if (name === 'shared' && now < 50) throw new Error('timeout');
        return { replayed: false, hits: [] };
      },
    });
    const admission = resilientAdmission(breaker, named('shared'), named('local'), named('stepwise'), 1000);
    const request = { proof: { jti: 'j', until: 1 }, windows: [], now: NOW };
    await admission.admit(request);
    assert.deepEqual(calls.splice(0), ['shared', 'local']);
    now = 500;
    await admission.admit(request);
    await admission.admit({ windows: [], now: NOW });
    assert.deepEqual(calls.splice(0), ['stepwise', 'shared'], 'a proof id is checked the stepwise way for a window after a fallback; counters alone are not');
    now = 2000;
    await admission.admit(request);
    assert.deepEqual(calls.splice(0), ['shared']);
  });

  const REDIS_URL = process.env.TEST_REDIS_URL;
  it('in one Redis script: the same answers, keys and expiries as the separate commands', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, async () => {
    const redis = new Redis(REDIS_URL as string);
    try {
      const prefix = `admission-test:${randomUUID()}`;
      const jti = randomUUID();
      assert.deepEqual(await run(redisAdmission(redis), script(prefix, jti)), EXPECTED);
      // The keys and expiries the separate commands use, so they count on together.
      const clock = createManualClock(NOW);
      assert.equal(await redisReplayCache(redis, clock).remember(jti, NOW + 70_000), false);
      const pttl = await redis.pttl(proofKey(jti));
      assert.ok(pttl > 60_000 && pttl <= 70_000, `proof id expires in ${pttl} ms`);
      const [first] = windows(prefix, [2]);
      assert.equal((await redisCounters(redis).hit(first!.key, first!.windowStart, first!.windowEnd, NOW)).count, 5);
      const windowTtl = await redis.pttl(windowKey(first!.key, first!.windowStart));
      // To the window's end and a second more, from the request's time.
      const toEnd = first!.windowEnd - NOW + 1000;
      assert.ok(windowTtl > toEnd - 10_000 && windowTtl <= toEnd, `window expires in ${windowTtl} ms`);
      await redis.del(proofKey(jti), proofKey(`${jti}b`), proofKey(`${jti}c`), proofKey(`${jti}d`), ...windows(prefix, [0, 0]).map((w) => windowKey(w.key, w.windowStart)));
    } finally {
      redis.disconnect();
    }
  });
});
