/**
 * The one error class of the service. Every refusal carries an HTTP status, a stable snake_case
 * `code` and a `title` stable per code (RFC 9457 §3.1.4); `detail` explains this occurrence.
 * One handler turns it into application/problem+json. `expose` is false for unexpected 5xx so
 * internals never reach a client.
 */
export interface FieldError {
  path: string;
  code: string;
  message: string;
}

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  readonly expose: boolean;

  constructor(status: number, code: string, title: string, options: AppErrorOptions = {}) {
    super(options.detail ?? title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = options.detail ?? title;
    this.errors = options.errors;
    this.headers = options.headers;
    // 503 (load shedding, draining) says on purpose what is going on; other 5xx say nothing.
    this.expose = status < 500 || status === 503;
  }
}
