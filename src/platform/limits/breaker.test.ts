import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBreaker } from './breaker.js';

describe('Redis circuit breaker', () => {
  it('falls back after a failure, stays open for openMs, then closes on one successful probe', async () => {
    let now = 0;
    let connected = true;
    const events: string[] = [];
    const breaker = createBreaker({ connected: () => connected, now: () => now, openMs: 100, onOpen: () => events.push('open'), onClose: () => events.push('close') });
    let calls = 0;
    const primary = async () => {
      calls++;
      throw new Error('timeout');
    };
    assert.equal(await breaker.run(primary, async () => 'fallback'), 'fallback');
    assert.equal(calls, 1);
    now = 50;
    // Open: Redis is not asked at all.
    assert.equal(await breaker.run(primary, async () => 'fallback'), 'fallback');
    assert.equal(calls, 1);
    assert.equal(breaker.sinceFallbackMs(), 0);
    now = 150;
    assert.equal(await breaker.run(async () => 'redis', async () => 'fallback'), 'redis');
    assert.equal(breaker.open, false);
    // Disconnected: straight to the fallback, without a command.
    connected = false;
    assert.equal(await breaker.run(primary, async () => 'fallback'), 'fallback');
    assert.equal(calls, 1);
    assert.deepEqual(events, ['open', 'close', 'open']);
  });

  it('lets one probe through at a time while half-open', async () => {
    let now = 0;
    const breaker = createBreaker({ connected: () => true, now: () => now, openMs: 10 });
    await breaker.run(async () => Promise.reject(new Error('down')), async () => 0);
    now = 20;
    let release!: () => void;
    const probe = breaker.run(() => new Promise<string>((resolve) => (release = () => resolve('redis'))), async () => 'fallback');
    assert.equal(await breaker.run(async () => 'second probe', async () => 'fallback'), 'fallback');
    release();
    assert.equal(await probe, 'redis');
  });
});
