/**
 * A refusal of a DAV request, answered in the protocol's own shape rather than as
 * problem+json: a `D:error` body naming the failed precondition (RFC 4918 §16, RFC 6352 §6.3.2.1,
 * RFC 6578 §3.2) or a line of plain text. Address-book clients show neither; they act on the
 * status and the precondition.
 */
export class DavError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** The precondition or postcondition element(s), as XML with the D/C prefixes (xml.ts). */
    readonly condition?: string,
  ) {
    super(detail);
    this.name = 'DavError';
  }
}

