import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

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
    throw new AppError(428, 'precondition_required', 'Precondition required', { detail: 'send If-Match with the ETag you last read' });
  }
  const match = typeof header === 'string' ? STRONG_VERSION_TAG.exec(header.trim()) : null;
  if (!match) {
    throw new AppError(412, 'version_mismatch', 'Version mismatch', { detail: 'If-Match must be one strong ETag as returned by a GET' });
  }
  return Number(match[1]);
}
