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
 * How often `*` or a list is evaluated again when a concurrent change won the race between the
 * read of the current version and the update: each round at least one writer succeeds, so this
 * bounds the number of simultaneous writers on one resource that `*` outlasts.
 */
const MAX_REEVALUATIONS = 32;

/**
 * Runs an update conditioned on If-Match (PRODUCT §0). Missing If-Match is 428
 * precondition_required (RFC 6585 §3): without it two editors overwrite each other. One tag names the version
 * at once, and a concurrent change makes it 412, as it should. `*` and lists are evaluated
 * against the current version; when a concurrent change moved it between that read and the
 * update (the update refuses with version_mismatch), the condition is evaluated again against
 * the new version. So `*`, which matches any current version, never fails because of a
 * concurrent change (RFC 9110 §13.1.1), and a list fails only once none of its tags is current.
 */
export async function ifMatched<T>(request: FastifyRequest, current: CurrentVersion, update: (version: number) => Promise<T>): Promise<T> {
  // The route's config documents the header (openapi.ts); a route reading it undeclared is a bug.
  if (!request.routeOptions.config.ifMatch) throw new Error(`${request.routeOptions.url} reads If-Match without declaring ifMatch`);
  const header = request.headers['if-match'];
  if (header === undefined || header === '') throw refuse('precondition_required', 'send If-Match with the ETag you last read');
  return conditioned(parseIfMatch(String(header)), current, update);
}

/** ifMatched on a PUT that may create: without If-Match the update gets undefined (the service decides). */
export async function ifMatchedOptional<T>(request: FastifyRequest, current: CurrentVersion, update: (version: number | undefined) => Promise<T>): Promise<T> {
  if (request.headers['if-match'] === undefined) return update(undefined);
  return ifMatched(request, current, update);
}

async function conditioned<T>(condition: IfMatch, current: CurrentVersion, update: (version: number) => Promise<T>): Promise<T> {
  if (!condition.any && condition.versions.length === 1) return update(condition.versions[0]!);
  for (let round = 1; ; round++) {
    const version = await matchedVersion(condition, current);
    try {
      return await update(version);
    } catch (error) {
      if (round >= MAX_REEVALUATIONS || !(error instanceof AppError && error.code === 'version_mismatch')) throw error;
    }
  }
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
