import type { DpopRefusalReason } from '../crypto/dpop.js';
import { AppError } from '../errors.js';
import type { RegionRefusalReason } from '../federation/reasons.js';

/**
 * What modules and platform plugins may count, as named methods, so none of them imports
 * prom-client or knows a metric's name (docs/operations.md, Metrics). Every label value is
 * one of the fixed lists below: a series per value, never one per user, id or raw path.
 * With METRICS_PORT unset the Platform carries `noMetrics`, whose methods do nothing.
 */

/** How an attempt ended: a refusal is a 4xx the client caused; a failure is anything else (a 5xx). */
export const OUTCOMES = ['succeeded', 'refused', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Ways into an account that open a session on a new device. */
export const LOGIN_METHODS = ['passkey', 'recovery', 'join'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

/** `reused` is a refresh token presented twice (RFC 9700 §4.14.2): the session was revoked. */
export const RENEWAL_OUTCOMES = ['renewed', 'refused', 'reused', 'failed'] as const;
export type RenewalOutcome = (typeof RENEWAL_OUTCOMES)[number];

/**
 * Every limit that answers 429: the rate-limit plugin's policies and the monthly quota, and the
 * limits services keep themselves: attempts at recovery, join codes and TOTP (`attempts`),
 * failed authentications per address or DPoP key (`failed_authentications`), a
 * person's new subscription requests (`subscription_requests`) and event streams per account
 * on a node (`streams`).
 */
export const RATE_LIMIT_POLICIES = ['auth', 'user', 'public', 'web', 'probe', 'dav', 'quota', 'attempts', 'failed_authentications', 'subscription_requests', 'streams'] as const;
export type RateLimitPolicy = (typeof RATE_LIMIT_POLICIES)[number];

/** The policy of a 429 refused by a service, counted where every refusal is answered (problem plugin). */
const POLICY_OF_REFUSAL: Readonly<Record<string, RateLimitPolicy>> = {
  too_many_attempts: 'attempts',
  too_many_failed_authentications: 'failed_authentications',
  subscription_request_limit: 'subscription_requests',
  too_many_streams: 'streams',
};
export const limitPolicyOfRefusal = (code: string): RateLimitPolicy | undefined => POLICY_OF_REFUSAL[code];

/** Why a request was shed with 503 (load-shedding plugin; @fastify/under-pressure's checks). */
export const SHED_REASONS = ['event_loop_delay', 'event_loop_utilization', 'heap', 'rss', 'health_check', 'in_flight', 'other'] as const;
export type ShedReason = (typeof SHED_REASONS)[number];

/** What the stream hub reports (hub.ts stats()), read when metrics are scraped. */
export interface StreamStats {
  streams: number;
  stalled: number;
  droppedSlowConsumers: number;
}

export interface Metrics {
  readonly enabled: boolean;
  signUp(outcome: Outcome): void;
  login(method: LoginMethod, outcome: Outcome): void;
  renewal(outcome: RenewalOutcome): void;
  /** A step-up assertion was presented (a request without one is not an attempt). */
  stepUp(outcome: Outcome): void;
  /** A DPoP proof refused before the replay check, by its reason (crypto/dpop.ts, DPOP_REFUSAL_REASONS). */
  proofRefused(reason: DpopRefusalReason): void;
  /** An otherwise valid proof whose jti was seen before (RFC 9449 §11.1). */
  replayRefused(): void;
  rateLimited(policy: RateLimitPolicy): void;
  shed(reason: ShedReason): void;
  /** A signed request from another region accepted (federation/signatures.ts); `region` is a configured peer's id. */
  regionRequest(region: string): void;
  /** One refused, by reason (federation/reasons.ts); `region` is a configured peer's id or `unknown`. */
  regionRequestRefused(region: string, reason: RegionRefusalReason): void;
  /** This region's outbox sender had one request of `deliveries` deliveries taken (200) by peer `region` (regions/sender.ts). */
  regionDeliveriesSent(region: string, deliveries: number): void;
  /**
   * Collect-time sources, asked only when /metrics is scraped: the live sessions (one query,
   * cached for a few seconds) and this node's streams.
   */
  countLiveSessionsWith(count: (now: number) => Promise<number>): void;
  readStreamsWith(stats: () => StreamStats): void;
}

const nothing = () => {};

/** Metrics off: every method does nothing, so counting costs a call to an empty function. */
export const noMetrics: Metrics = {
  enabled: false,
  signUp: nothing,
  login: nothing,
  renewal: nothing,
  stepUp: nothing,
  proofRefused: nothing,
  replayRefused: nothing,
  rateLimited: nothing,
  shed: nothing,
  regionRequest: nothing,
  regionRequestRefused: nothing,
  regionDeliveriesSent: nothing,
  countLiveSessionsWith: nothing,
  readStreamsWith: nothing,
};

export function outcomeOf(error: unknown): Exclude<Outcome, 'succeeded'> {
  return error instanceof AppError && error.status < 500 ? 'refused' : 'failed';
}

/**
 * Wraps an async service method so each call counts its outcome, leaving the method's body as
 * it was: `loginFinish: countingOutcomes((o) => metrics.login('passkey', o), async function loginFinish(input) { … })`.
 */
export function countingOutcomes<A extends unknown[], T>(count: (outcome: Outcome) => void, fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return async (...args: A): Promise<T> => {
    let result: T;
    try {
      result = await fn(...args);
    } catch (error) {
      count(outcomeOf(error));
      throw error;
    }
    count('succeeded');
    return result;
  };
}
