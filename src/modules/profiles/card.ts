import { createHash } from 'node:crypto';
import type { ExposedField } from './queries.js';

/** The vCard versions a card is written in (vcard.ts): a card's tag differs per version. */
export type VcardVersion = '3.0' | '4.0';

/**
 * The card (PRODUCT §3): what one person shows another, the same shape wherever it appears
 * (a profile's preview, a contact's card, the public card), built by this one function from a
 * profile's exposures and the owner's fields. Nothing reaches a card but the fields its
 * profile exposes, in the profile's order.
 */
export interface CardField {
  id: string;
  type: string;
  /** The exposure's label when set, else the field's. */
  label: string | null;
  /** ISO 3166-1 alpha-2 the value is read in (addresses, phones); null when the type has none. */
  country: string | null;
  value: unknown;
  details: Record<string, unknown>;
}

export interface Card {
  /** `region`: on a card from another region only, the owner's (PRODUCT §10: alice@eu is never alice). */
  owner: { username: string; display_name: string | null; region?: string };
  fields: CardField[];
  updated_at: string;
  /**
   * What changed at `updated_at`, for its audience: the kinds of detail (cardChanges). Absent on
   * cards last rendered before the card said so.
   */
  changed?: string[];
  schema_version: 1;
}

export interface CardContent {
  owner: Card['owner'];
  fields: CardField[];
}

/** What a profile shows: the owner and its exposed fields in position order. */
export function cardContent(owner: { username: string; display_name: string | null }, exposed: readonly ExposedField[]): CardContent {
  const fields = [...exposed]
    .sort((a, b) => a.position - b.position || (a.field_id < b.field_id ? -1 : 1))
    .map((e) => ({
      id: e.field_id,
      type: e.type,
      label: e.label ?? e.field_label,
      country: e.country,
      value: JSON.parse(e.value) as unknown,
      details: JSON.parse(e.details) as Record<string, unknown>,
    }));
  return { owner: { username: owner.username, display_name: owner.display_name }, fields };
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');
const quoted = (opaque: string) => `"${opaque}"`;

/** Hash of what a card shows (not when): equal exactly when two cards show the same. */
export function contentHash(content: CardContent): string {
  return digest(JSON.stringify(content));
}

export interface RenderedCard {
  json: string;
  /** Strong entity tag of the card's bytes (RFC 9110 §8.8.3). */
  etag: string;
  hash: string;
  updatedAt: number;
}

/** The card's bytes: what it shows, when that last changed and what changed then. Every card served is written here. */
export function cardJson(content: CardContent, updatedAt: number, changed?: readonly string[]): string {
  const card: Card = {
    owner: content.owner,
    fields: content.fields,
    updated_at: new Date(updatedAt).toISOString(),
    ...(changed ? { changed: [...changed] } : {}),
    schema_version: 1,
  };
  return JSON.stringify(card);
}

/** What a rendered card shows (its stored JSON without the when and what-changed). */
export function contentOf(json: string): CardContent {
  const { owner, fields } = JSON.parse(json) as Card;
  return { owner, fields };
}

/** The kind of detail the owner's display name is, beside the field types. */
export const DISPLAY_NAME = 'display_name';

/**
 * What changed between two cards one audience sees, `before` then `after`, as kinds of detail:
 * the type of every field added, removed or changed (label, country, value or details), and
 * `display_name` when the owner's changed. So a client can say "new phone
 * number" without comparing cards. Never a value, and never a kind neither card shows: a field
 * the audience cannot see cannot appear (the properties in card.test.ts and profiles-model hold it to that).
 * A change of order alone changes no kind. Sorted, each kind once.
 */
export function cardChanges(before: CardContent, after: CardContent): string[] {
  const kinds = new Set<string>();
  const old = new Map(before.fields.map((field) => [field.id, field]));
  const shown = (field: CardField) => JSON.stringify([field.type, field.label, field.country, field.value, field.details]);
  for (const field of after.fields) {
    const was = old.get(field.id);
    if (!was || shown(was) !== shown(field)) {
      kinds.add(field.type);
      if (was) kinds.add(was.type);
    }
    old.delete(field.id);
  }
  for (const gone of old.values()) kinds.add(gone.type);
  if (before.owner.display_name !== after.owner.display_name) kinds.add(DISPLAY_NAME);
  return [...kinds].sort();
}

/** A rendered card's tag: from its bytes, as renderCard makes it. */
export const cardTag = (json: string): string => quoted(digest(json).slice(0, 32));

/**
 * The card as served: its content plus when that content last changed, and what changed then.
 * `previous` is what was rendered before (its hash, time and stored JSON): `updated_at` moves
 * only when the content hash differs from it, and `changed` compares the two. A first card
 * changed nothing anyone saw.
 */
export function renderCard(content: CardContent, now: number, previous?: { hash: string; updatedAt: number; json?: string }): RenderedCard {
  const hash = contentHash(content);
  if (previous && previous.hash === hash) {
    const json = previous.json ?? cardJson(content, previous.updatedAt);
    return { json, etag: cardTag(json), hash, updatedAt: previous.updatedAt };
  }
  const changed = previous?.json ? cardChanges(contentOf(previous.json), content) : [];
  const json = cardJson(content, now, changed);
  return { json, etag: cardTag(json), hash, updatedAt: now };
}

/**
 * A rendered card as someone sees it who began seeing it after it last changed (a contact
 * moved onto the profile, or approved): the same content, changed for them when they began
 * (PRODUCT §3: `updated_at` moves exactly when what this card shows them changes), with what
 * changed for them then (cardChanges between the card they saw before and this one; none for
 * their first card), when known.
 */
export function cardAsOf(json: string, updatedAt: number, changed?: readonly string[]): string {
  return cardJson(contentOf(json), updatedAt, changed);
}

/** What tells one representation of a rendered card from another. */
export interface CardVariant {
  /** Seen since this moment, later than the card's own change (cardAsOf). */
  since?: number;
  /** The card as a vCard of this version. */
  vcard?: VcardVersion;
  /** A 4.0 vCard with RFC 9554's properties (vcard.ts). */
  rfc9554?: boolean;
}

/**
 * The edition of the vCard writer (vcard.ts): one more whenever it writes other bytes for the
 * same card (edition 2: 3.0's escaping and TEL extension, folds kept off white space, N left
 * empty without a name field, RFC 9554 properties only on request), so a vCard's tag never
 * names two byte sequences (RFC 9110 §8.8.3: a strong validator changes with the bytes).
 */
const VCARD_EDITION = 2;

/**
 * The strong entity tag of a variant of a rendered card (RFC 9110 §8.8.3): the card's own tag
 * (`etag` as renderCard made it) with what tells the variant apart, so each representation has
 * its own tag and a change of the card changes every one of them.
 */
export function cardEtag(etag: string, variant: CardVariant = {}): string {
  if (variant.since === undefined && variant.vcard === undefined) return etag;
  const since = variant.since === undefined ? '' : `.${variant.since.toString(36)}`;
  const extensions = variant.vcard === '4.0' && variant.rfc9554 ? '-rfc9554' : '';
  const vcard = variant.vcard === undefined ? '' : `-v${variant.vcard[0]}${extensions}-e${VCARD_EDITION}`;
  return quoted(`${etag.slice(1, -1)}${since}${vcard}`);
}
