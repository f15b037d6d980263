// Every refusal surfaces as a VidProblemError carrying the RFC 9457 problem document; transport
// failures as VidNetworkError.
import type { Problem, ProblemCode } from './api.js';

/**
 * A refusal: the RFC 9457 problem document the server answered, with its headers. `C` narrows
 * `code` (isProblem(error, 'field_not_found') gives a `VidProblemError<'field_not_found'>`).
 */
export class VidProblemError<C extends ProblemCode = ProblemCode> extends Error {
  override readonly name = 'VidProblemError';
  readonly problem: Problem;
  /** The response headers (Retry-After, WWW-Authenticate, RateLimit-*, VID-Request-Id). */
  readonly headers: Headers;

  /** Made by the client from an answer; `problemFrom` reads a Response into one. */
  constructor(problem: Problem, headers: Headers) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.headers = headers;
  }

  /** The HTTP status (the problem's `status`). */
  get status(): number {
    return this.problem.status;
  }
  /** Stable, machine-readable (snake_case; JOIN_NOT_APPROVED is the spec's own). */
  get code(): C {
    return this.problem.code as C;
  }
  /** The problem type URI (RFC 9457 §3.1.1). */
  get type(): string {
    return this.problem.type;
  }
  /** The same short summary for every occurrence of this code. */
  get title(): string {
    return this.problem.title;
  }
  /** What went wrong this time, in a sentence for developers (not for the person). */
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
  /** `cause`: the error fetch threw. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * `error` is a problem (with this code, when given). The code is checked at compile time against
 * every code a server answers: `isProblem(error, 'feild_not_found')` does not compile.
 */
export function isProblem<C extends ProblemCode = ProblemCode>(error: unknown, code?: C): error is VidProblemError<C> {
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
