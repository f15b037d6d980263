// The one assertion for a refusal (RFC 9457; docs: errors are application/problem+json): the
// suites call it and keep next to the call only what is particular to them (no ETag on a
// refusal, the WWW-Authenticate challenge, the full document shape in the conventions suites).
import assert from 'node:assert/strict';

/** The test client's answer (fetch Headers, parsed body). */
interface ClientAnswer {
  status: number;
  headers: { get(name: string): string | null };
  body: unknown;
}

/** An answer read off fetch or a raw socket: a header reader and the text, maybe parsed already. */
interface RawAnswer {
  status: number;
  header(name: string): string | null;
  text: string;
  body?: unknown;
}

export type ProblemAnswer = ClientAnswer | RawAnswer;

/**
 * Asserts that `res` is the refusal `code` with HTTP status `status`: the status, Content-Type
 * application/problem+json, the `code` member, the `status` member equal to the HTTP status, and
 * `request_id` equal to the VID-Request-Id header. Returns the problem document. `why` prefixes
 * the failure messages.
 */
export function expectProblem(res: ProblemAnswer, status: number, code: string, why = ''): Record<string, any> {
  const header = 'headers' in res ? (name: string) => res.headers.get(name) : (name: string) => res.header(name);
  const shown = 'text' in res && typeof res.text === 'string' ? res.text.slice(0, 500) : JSON.stringify(res.body);
  const context = `${why ? `${why}: ` : ''}expected ${status} ${code}, got ${res.status} ${shown}`;
  assert.equal(res.status, status, context);
  assert.equal(header('content-type')?.split(';')[0]?.trim(), 'application/problem+json', context);
  let body = res.body;
  if (body === undefined && 'text' in res) {
    assert.doesNotThrow(() => (body = JSON.parse(res.text)), `${context}: the body is JSON`);
  }
  assert.ok(body !== null && typeof body === 'object', `${context}: the body is an object`);
  const document = body as Record<string, any>;
  assert.equal(document.code, code, context);
  assert.equal(document.status, status, `${context}: the status member is the HTTP status`);
  const requestId = header('vid-request-id');
  assert.ok(requestId, `${context}: VID-Request-Id header`);
  assert.equal(document.request_id, requestId, `${context}: request_id is the VID-Request-Id header`);
  return document;
}
