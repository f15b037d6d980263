import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, refuse } from '../errors.js';
import { noneMatchHolds } from '../etag.js';

/** Strong entity tag of a versioned resource (RFC 9110 §8.8.3). */
export function etagFor(version: number): string {
  return `"${version}"`;
}

export function setEtag(reply: FastifyReply, version: number): void {
  reply.header('ETag', etagFor(version));
}

/** An If-Match field as RFC 9110 §13.1.1 reads it: "*", or the versions its strong tags name. */
export type IfMatch = { any: true } | { any: false; versions: number[] };

// One member of the list: a strong or weak entity tag, or the bare version the spec writes
// (`If-Match: <version>`), which we read as the strong tag "<version>".
const MEMBER = /^(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"|(\d{1,15}))$/;

/**
 * Parses If-Match (RFC 9110 §13.1.1): `*`, or a comma-separated list of entity tags. Weak tags
 * and tags that name no version of ours stay in the list but can never match (the comparison is
 * strong); a field that is not this grammar is 400 invalid_if_match, not a false mismatch.
 */
export function parseIfMatch(header: string): IfMatch {
  const value = header.trim();
  if (value === '*') return { any: true };
  const versions: number[] = [];
  // Entity tags cannot hold a comma, nor a quote, so splitting on commas is exact.
  const members = value.split(',').map((member) => member.trim()).filter(Boolean);
  if (!members.length) throw refuse('invalid_if_match', 'If-Match must be * or a list of ETags as returned by a GET');
  for (const member of members) {
    const match = MEMBER.exec(member);
    if (!match) throw refuse('invalid_if_match', 'If-Match must be * or a list of ETags as returned by a GET');
    const [, weak, opaque, bare] = match;
    const digits = bare ?? (!weak && opaque !== undefined && /^\d{1,15}$/.test(opaque) ? opaque : undefined);
    if (digits !== undefined) versions.push(Number(digits));
  }
  return { any: false, versions };
}

/** Reads the resource's current version, or undefined when there is none. */
export type CurrentVersion = () => Promise<number | undefined>;

/** The current version from a service's read: undefined when the read answers 404. */
export function versionOf(read: () => Promise<{ version: number }> | { version: number }): CurrentVersion {
  return async () => {
    try {
      return (await read()).version;
    } catch (error) {
      if (error instanceof AppError && error.status === 404) return undefined;
      throw error;
    }
  };
}

/**
 * The version an update is conditioned on (PRODUCT §0). Missing If-Match is 428
 * precondition_required (RFC 6585 §3): without it two editors overwrite each other. One tag
 * names the version at once; `*` and lists are evaluated against the current version (read
 * only then), and the update is then conditioned on that version as usual. No match is 412
 * version_mismatch (RFC 9110 §13.1.1).
 */
export async function requireIfMatch(request: FastifyRequest, current: CurrentVersion): Promise<number> {
  // The route's config documents the header (openapi.ts); a route reading it undeclared is a bug.
  if (!request.routeOptions.config.ifMatch) throw new Error(`${request.routeOptions.url} reads If-Match without declaring ifMatch`);
  const header = request.headers['if-match'];
  if (header === undefined || header === '') {
    throw refuse('precondition_required', 'send If-Match with the ETag you last read');
  }
  return matchedVersion(parseIfMatch(String(header)), current);
}

/** If-Match on a PUT that may create: undefined when absent (the service decides whether it must be there). */
export async function optionalIfMatch(request: FastifyRequest, current: CurrentVersion): Promise<number | undefined> {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  return requireIfMatch(request, current);
}

async function matchedVersion(condition: IfMatch, current: CurrentVersion): Promise<number> {
  if (!condition.any && condition.versions.length === 1) return condition.versions[0]!;
  if (!condition.any && condition.versions.length === 0) throw refuse('version_mismatch', 'If-Match names no version of this resource');
  const version = await current();
  if (version !== undefined && (condition.any || condition.versions.includes(version))) return version;
  throw refuse('version_mismatch', condition.any ? 'there is no current version to match *' : 'If-Match names no current version of this resource');
}

/** If-None-Match (RFC 9110 §13.1.2) of this request against a tag: a GET answers 304 then. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  return noneMatchHolds(request.headers['if-none-match'], etag);
}
