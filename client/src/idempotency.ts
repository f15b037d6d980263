// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header; PRODUCT §0): one UUID per logical
// call, generated before the first attempt and sent unchanged on every retry of that call, so the
// server runs it once and replays its answer (VID-Idempotent-Replay: true) to the retries.

/** Methods that get a key by default. The server ignores it on routes that do not honour one. */
const KEYED_METHODS = new Set(['POST', 'PATCH']);
/** Methods HTTP defines as idempotent (RFC 9110 §9.2.2): safe to resend after a network error. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** The key for one logical call: the caller's, none (false), or a new one for POST/PATCH. */
export function idempotencyKeyFor(method: string, requested: string | false | undefined): string | undefined {
  if (requested === false) return undefined;
  if (requested !== undefined) return requested;
  return KEYED_METHODS.has(method) ? newIdempotencyKey() : undefined;
}

/**
 * May the call be sent again when no answer arrived? Always for idempotent methods; for POST and
 * PATCH only when the caller says the route honours the key (else a retry could act twice).
 */
export function resendableAfterNetworkError(method: string, declared: boolean | undefined): boolean {
  return declared ?? IDEMPOTENT_METHODS.has(method);
}
