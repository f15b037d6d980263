import type { Redis } from 'ioredis';
import type { Admission } from './admission.js';
import { windowKey, windowTtl } from './counters.js';
import { proofKey, proofTtl } from './replay-cache.js';

/**
 * A request's admission in one Redis script, so one round trip (decision 350): the proof id's
 * `SET NX PX` (what redisReplayCache sends), then each window's `INCR` with `PEXPIRE` when it
 * opens (what redisCounters' script does), on the same keys and expiries as those, and in the
 * order the separate calls made them: a replay counts nothing, a window past its limit stops
 * the count there. Redis runs a script atomically, so no other request's commands come between.
 *
 * KEYS: the proof id's key when ARGV[1] is '1', then one key per window.
 * ARGV: '1' or '0', the proof id's expiry (ms), then per window its expiry (ms) and its limit.
 * Answers {1} for a replay, else {0, count, count, ...}.
 */
const ADMIT = `
local k = 1
if ARGV[1] == '1' then
  if not redis.call('SET', KEYS[1], '1', 'PX', ARGV[2], 'NX') then return {1} end
  k = 2
end
local answer = {0}
local a = 3
while k <= #KEYS do
  local count = redis.call('INCR', KEYS[k])
  if count == 1 then redis.call('PEXPIRE', KEYS[k], ARGV[a]) end
  answer[#answer + 1] = count
  if count > tonumber(ARGV[a + 1]) then break end
  k = k + 1
  a = a + 2
end
return answer`;

type WithAdmit = Redis & { vidAdmit(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Promise<number[]> };

export function redisAdmission(redis: Redis): Admission {
  // EVALSHA once the connection has the script (ioredis sends its text once per connection, and
  // again if Redis lost it), so Redis neither receives nor hashes the text per request.
  if (!('vidAdmit' in redis)) redis.defineCommand('vidAdmit', { lua: ADMIT });
  const client = redis as WithAdmit;
  return {
    async admit({ proof, windows, now }) {
      const keys: string[] = [];
      const args: Array<string | number> = [proof ? '1' : '0', proof ? proofTtl(proof.until, now) : 0];
      if (proof) keys.push(proofKey(proof.jti));
      for (const window of windows) {
        keys.push(windowKey(window.key, window.windowStart));
        args.push(windowTtl(window.windowEnd, now), window.limit);
      }
      const [replayed, ...counts] = await client.vidAdmit(keys.length, ...keys, ...args);
      if (replayed === 1) return { replayed: true, hits: [] };
      return { replayed: false, hits: counts.map((count, i) => ({ count, resetAt: windows[i]!.windowEnd })) };
    },
  };
}
