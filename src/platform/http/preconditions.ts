import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuse } from '../errors.js';
import { noneMatchHolds } from '../etag.js';

/** Strong entity tag of a versioned resource (RFC 9110 §8.8.3). */
export function etagFor(version: number): string {
  return `"${version}"`;
}

export function setEtag(reply: FastifyReply, version: number): void {
  reply.header('ETag', etagFor(version));
}

const STRONG_VERSION_TAG = /^"(\d{1,15})"$/;

/**
 * The version an update is conditioned on (PRODUCT §0). Missing If-Match is 428
 * precondition_required (RFC 6585 §3): without it two editors overwrite each other. A tag that
 * names no version of ours can never match: 412 (RFC 9110 §13.1.1).
 */
export function requireIfMatch(request: FastifyRequest): number {
  const header = request.headers['if-match'];
  if (header === undefined || header === '') {
    throw refuse('precondition_required', 'send If-Match with the ETag you last read');
  }
  const match = typeof header === 'string' ? STRONG_VERSION_TAG.exec(header.trim()) : null;
  if (!match) {
    throw refuse('version_mismatch', 'If-Match must be one strong ETag as returned by a GET');
  }
  return Number(match[1]);
}

/** If-None-Match (RFC 9110 §13.1.2) of this request against a tag: a GET answers 304 then. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  return noneMatchHolds(request.headers['if-none-match'], etag);
}
