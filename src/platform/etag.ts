/**
 * If-None-Match (RFC 9110 §13.1.2): does the client hold this representation already? Weak
 * comparison against any listed tag, or "*". Plain, so a service can answer a conditional read
 * without reading what it would not send.
 */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** A card (or any stored representation) for a possibly conditional GET: no `json` when the client's copy is current. */
export interface Conditional {
  etag: string;
  json?: string;
}
