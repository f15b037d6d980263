import type { TravellingCard, TravellingSubscription } from '../contacts/remote.js';

/**
 * What regions tell each other (decision 352), each the state of one subject as it is when sent,
 * so a delivery sent twice, late or after an hour away says nothing stale that is then applied:
 * the receiver keeps the newest (versions, card times). Per subject:
 * - `subscription`: one subscription, from the side that changed it (`from`): the owner's region
 *   with what the subscriber may see of it and its card; the subscriber's with its end;
 * - `card`: an edit of one profile's card, once per region with followers of it, whatever their number;
 * - `account`: an owner's account deleted, locked, back, or gone for good (purged).
 */
export type Delivery =
  | { kind: 'subscription'; from: 'owner' | 'subscriber'; subscription: TravellingSubscription }
  | { kind: 'card'; owner: string; card: TravellingCard }
  | { kind: 'account'; username: string; display_name: string | null; deleted: boolean; locked: boolean; gone: boolean; version: number };

/** The outbox's subjects: what changed, named by this region's ids; what is sent is read when sending. */
export const subject = {
  pair: (ownerId: string, subscriberId: string) => `pair:${ownerId}:${subscriberId}`,
  card: (profileId: string) => `card:${profileId}`,
  owner: (ownerId: string) => `owner:${ownerId}`,
  gone: (username: string) => `gone:${username}`,
};

export type Subject = { kind: 'pair'; ownerId: string; subscriberId: string } | { kind: 'card'; profileId: string } | { kind: 'owner'; ownerId: string } | { kind: 'gone'; username: string };

export function parseSubject(text: string): Subject | undefined {
  const [kind, a, b] = text.split(':');
  if (kind === 'pair' && a && b) return { kind, ownerId: a, subscriberId: b };
  if (kind === 'card' && a) return { kind, profileId: a };
  if (kind === 'owner' && a) return { kind, ownerId: a };
  if (kind === 'gone' && a) return { kind, username: a };
  return undefined;
}


const isText = (value: unknown, max = 4096): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
const isTextOrNull = (value: unknown, max = 4096) => value === null || (typeof value === 'string' && value.length <= max);
const isTime = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const isTimeOrNull = (value: unknown) => value === null || isTime(value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isCard(value: unknown): boolean {
  if (!isObject(value) || !isText(value.id, 64) || !isText(value.card_json, 1_000_000) || !isText(value.card_hash, 128) || !isTime(value.card_updated_at)) return false;
  try {
    return isObject(JSON.parse(value.card_json as string));
  } catch {
    return false;
  }
}

/** Whether another region's word has the shape of a delivery: anything else is refused before it is applied. */
export function isDelivery(value: unknown): value is Delivery {
  if (!isObject(value)) return false;
  if (value.kind === 'card') return isText(value.owner, 128) && isCard(value.card);
  if (value.kind === 'account') return isText(value.username, 128) && isTextOrNull(value.display_name) && typeof value.deleted === 'boolean' && typeof value.locked === 'boolean' && typeof value.gone === 'boolean' && Number.isSafeInteger(value.version);
  if (value.kind !== 'subscription' || (value.from !== 'owner' && value.from !== 'subscriber')) return false;
  const s = value.subscription;
  if (!isObject(s) || !isText(s.id, 64) || !isObject(s.owner) || !isText(s.owner.username, 128) || !isTextOrNull(s.owner.display_name) || !isText(s.subscriber, 128)) return false;
  if (!['pending', 'active', 'revoked', 'ended'].includes(s.status as string) || !Number.isSafeInteger(s.version)) return false;
  if (!isTextOrNull(s.message) || !isTime(s.created_at) || !isTime(s.updated_at) || !isTimeOrNull(s.card_since) || !isTextOrNull(s.card_changes)) return false;
  if (s.card_id !== undefined && (s.card !== null || !isText(s.card_id, 64))) return false;
  return s.card === null || isCard(s.card);
}
