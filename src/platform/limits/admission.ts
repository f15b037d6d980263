import type { Counters, WindowHit } from './counters.js';
import type { ReplayCache } from './replay-cache.js';

/**
 * What an authenticated request spends before its route runs, asked for at once so that several
 * nodes pay one Redis round trip for it (decision 350): the DPoP proof's id (RFC 9449 §11.1),
 * then the windows it counts in (the class's minute limit, then the monthly quota), in the
 * order their refusals win.
 */
export interface WindowToCount {
  /** The counter's name, as `Counters.hit` takes it (`user:<account>`, `quota:<account>`). */
  key: string;
  windowStart: number;
  windowEnd: number;
  /** Past this count the window refuses, and the windows after it are not counted. */
  limit: number;
}

export interface AdmissionRequest {
  proof?: { jti: string; until: number };
  windows: readonly WindowToCount[];
  now: number;
}

export interface Admitted {
  /** The proof's id was seen before: nothing was counted. */
  replayed: boolean;
  /** One per window counted, in order; the last is past its limit when counting stopped early. */
  hits: WindowHit[];
}

export interface Admission {
  admit(request: AdmissionRequest): Promise<Admitted>;
}

const REPLAYED: Admitted = { replayed: true, hits: [] };

/** The windows one after another on `counters`, stopping at the first past its limit. */
export function countedAdmission(counters: Counters): Admission {
  return {
    async admit({ windows, now }) {
      const hits: WindowHit[] = [];
      for (const window of windows) {
        const hit = await counters.hit(window.key, window.windowStart, window.windowEnd, now);
        // A copy: the memory counters hand out their live record, which later hits change.
        hits.push({ count: hit.count, resetAt: hit.resetAt });
        if (hit.count > window.limit) break;
      }
      return { replayed: false, hits };
    },
  };
}

/**
 * The proof's id in its own cache first (a replay counts nothing), then the windows through
 * `windows`: the order of the separate calls this replaces.
 */
export function proofThenWindows(replayCache: ReplayCache, windows: Admission): Admission {
  return {
    async admit(request) {
      if (request.proof && !(await replayCache.remember(request.proof.jti, request.proof.until))) return REPLAYED;
      return windows.admit({ windows: request.windows, now: request.now });
    },
  };
}

/** Both in this process or the database, one call at a time (no Redis, or Redis bypassed). */
export function stepwiseAdmission(replayCache: ReplayCache, counters: Counters): Admission {
  return proofThenWindows(replayCache, countedAdmission(counters));
}
