// Every refusal surfaces as a VidProblemError carrying the RFC 9457 problem document; transport
// failures as VidNetworkError.
import type { Problem } from './api.js';

export class VidProblemError extends Error {
  override readonly name = 'VidProblemError';
  readonly problem: Problem;
  /** The response headers (Retry-After, WWW-Authenticate, RateLimit-*, VID-Request-Id). */
  readonly headers: Headers;

  constructor(problem: Problem, headers: Headers) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.headers = headers;
  }

  get status(): number {
    return this.problem.status;
  }
  /** Stable, machine-readable (snake_case; JOIN_NOT_APPROVED is the spec's own). */
  get code(): string {
    return this.problem.code;
  }
  get type(): string {
    return this.problem.type;
  }
  get title(): string {
    return this.problem.title;
  }
  get detail(): string {
    return this.problem.detail;
  }
  /** Quote it when reporting a problem. */
  get requestId(): string {
    return this.problem.request_id;
  }
  /** Validation failures: one entry per offending member. */
  get errors(): Problem['errors'] {
    return this.problem.errors;
  }
}

/** The request never got an HTTP answer (connection refused, reset, DNS, timeout). */
export class VidNetworkError extends Error {
  override readonly name = 'VidNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** `error` is a problem (with this code, when given). */
export function isProblem(error: unknown, code?: string): error is VidProblemError {
  return error instanceof VidProblemError && (code === undefined || error.code === code);
}

/**
 * The problem a non-2xx response describes. A body that is not a problem document (a proxy's
 * HTML error page) becomes one with code `unexpected_response`, so callers handle one shape.
 */
export async function problemFrom(response: Response): Promise<VidProblemError> {
  const text = await response.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const body = (parsed && typeof parsed === 'object' ? parsed : {}) as Partial<Problem>;
  const problem: Problem = {
    ...body,
    type: typeof body.type === 'string' ? body.type : 'about:blank',
    title: typeof body.title === 'string' ? body.title : response.statusText || `HTTP ${response.status}`,
    status: typeof body.status === 'number' ? body.status : response.status,
    detail: typeof body.detail === 'string' ? body.detail : text.slice(0, 200),
    code: typeof body.code === 'string' ? body.code : 'unexpected_response',
    request_id: typeof body.request_id === 'string' ? body.request_id : (response.headers.get('vid-request-id') ?? ''),
  };
  return new VidProblemError(problem, response.headers);
}

/** RFC 9449 §7.1 / RFC 6750 §3: the `error` of a `WWW-Authenticate: DPoP …` challenge. */
export function challengeError(headers: Headers): string | undefined {
  const value = headers.get('www-authenticate');
  return value ? /error="([^"]*)"/.exec(value)?.[1] : undefined;
}
