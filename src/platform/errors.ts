import { REFUSALS } from './refusals.js';
import type { RefusalCode } from './refusals.js';

export type { RefusalCode } from './refusals.js';

/**
 * The one error class of the service. Every refusal carries an HTTP status, a stable snake_case
 * `code` and a `title` stable per code (RFC 9457 §3.1.4), all three taken from the refusal
 * catalogue (refusals.ts); `detail` explains this occurrence. One handler (the problem plugin)
 * turns it into application/problem+json and adds the headers a refusal implies
 * (WWW-Authenticate, Retry-After): code that refuses never sets HTTP headers itself.
 * `expose` is false for unexpected 5xx so internals never reach a client.
 */
export interface FieldError {
  path: string;
  code: string;
  message: string;
}

export interface RefusalOptions {
  detail?: string;
  errors?: FieldError[];
  /** When the client may try again (429, 503, 409 in flight): sent as Retry-After. */
  retryAfterSeconds?: number;
  /** Extension members of the problem document (PRODUCT §4: `contact_id` on already_subscribed). */
  extensions?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly retryAfterSeconds?: number;
  readonly extensions?: Record<string, string>;
  /** The RFC 6750 §3.1 error a 401 (or 400) names in WWW-Authenticate, if any. */
  readonly challengeError?: string;
  readonly expose: boolean;

  constructor(code: RefusalCode, options: RefusalOptions = {}) {
    const refusal = REFUSALS[code];
    super(options.detail ?? refusal.title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = refusal.status;
    this.code = 'code' in refusal ? refusal.code : code;
    this.title = refusal.title;
    this.detail = options.detail ?? refusal.title;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extensions = options.extensions;
    this.challengeError = 'challenge' in refusal ? refusal.challenge : undefined;
    // 503 (load shedding, draining) says on purpose what is going on; other 5xx say nothing.
    this.expose = refusal.status < 500 || refusal.status === 503;
  }
}

/** Why an access token was refused: `expired` once it aged out, the others a wrong token. */
export type TokenRefusalReason = 'unknown' | 'other_key' | 'expired';

/**
 * 401 invalid_token for an access token, carrying its reason so failed authentications are
 * counted without reading the detail (decision 003: a token that aged out is not counted). The
 * problem document shows only the detail.
 */
export class TokenRefused extends AppError {
  constructor(
    readonly reason: TokenRefusalReason,
    detail: string,
  ) {
    super('invalid_token', { detail });
  }
}

/** A refusal from the catalogue, ready to throw: `throw refuse('field_not_found', { detail })`. */
export function refuse(code: RefusalCode, options?: RefusalOptions | string): AppError {
  return new AppError(code, typeof options === 'string' ? { detail: options } : options);
}

/** 400 validation_failed with one entry per broken rule. */
export function validationFailed(errors: FieldError[], detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ')): AppError {
  return new AppError('validation_failed', { detail, errors });
}
