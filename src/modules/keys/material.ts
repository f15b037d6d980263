import type { SelectQueryBuilder } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { KeyBundleRecord, keyBundleQueries, KeyShareRecord, keyShareQueries } from './queries.js';
import { KEY_LIMITS } from './schemas.js';

export interface KeyBundleView {
  id: string;
  method_id: string;
  bundle: string;
  created_at: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

export interface ContactKeyView {
  id: string;
  bundle: string;
  updated_at: string;
}

export interface KeyShareView {
  share: string;
  updated_at: string;
  version: number;
  schema_version: 1;
}

export type Repo = RepositoryOf<{ bundles: typeof keyBundleQueries; shares: typeof keyShareQueries }>;

/** What the keys service is built from (module.ts passes it whole). */
export interface KeyDeps {
  db: Repo;
  clock: Clock;
  /** Whose contact this is, when its keys are the subscriber's to see; else the refusal (the contacts service's audience rule). */
  shownOwner: (subscriberId: string, contactId: string, what: 'keys') => Promise<string>;
  /** Everyone who sees the owner now (active, whichever profile) with their contact ids, as fan-out targets (the contacts service). */
  activeSubscribersOf: (tx: Tx, ownerId: string) => SelectQueryBuilder<any, any, { account_id: string; param: string }>;
}

export const iso = (t: number) => new Date(t).toISOString();
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * PRODUCT §7: key material is opaque base64url (no padding) of at most 8 KiB. Checked as text
 * only (never decoded, so the server learns nothing of it), and the refusal never echoes it.
 */
export function opaque(value: string, code: 'invalid_key_bundle' | 'invalid_key_share', path: string): string {
  const tooLong = value.length > KEY_LIMITS.maxLength;
  if (!tooLong && BASE64URL.test(value)) return value;
  const message = tooLong ? `at most ${KEY_LIMITS.maxLength} characters` : 'base64url only: A-Z a-z 0-9 - _, no padding, not empty';
  throw refuse(code, { detail: `${path}: ${message}`, errors: [{ path, code: tooLong ? 'too_long' : 'not_base64url', message }] });
}

export const bundleView = (row: KeyBundleRecord): KeyBundleView => ({
  id: row.id,
  method_id: row.method_id,
  bundle: row.bundle,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
  version: row.version,
  schema_version: 1,
});

export const shareView = (row: KeyShareRecord): KeyShareView => ({ share: row.share, updated_at: iso(row.updated_at), version: row.version, schema_version: 1 });

/**
 * A PUT of what is stored already: the transaction is rolled back (its signals with it) and the
 * current resource answered, since nothing changed that anyone should pull.
 */
export class Unchanged extends Error {
  constructor(readonly view: KeyBundleView | KeyShareView) {
    super('unchanged');
  }
}

// Another account's passkey answers like an unknown one, so ids cannot be probed (404, never 403).
export const methodNotFound = () => refuse('method_not_found', 'no passkey of yours has this id');
export const bundleNotFound = () => refuse('key_bundle_not_found', 'this passkey has no key bundle yet: PUT creates it');
export const shareNotFound = () => refuse('key_share_not_found', 'no server share is stored yet: PUT creates it');
