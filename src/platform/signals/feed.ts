import type { SignalKindName } from './catalogue.js';
import type { SignalRecord } from './log.js';

/**
 * An account's signal feed is the union of two logs (docs/decisions/220-card-changes-fanned-out-on-read.md):
 *
 * - `own`: the account's own signals (the `events` table), numbered per account without gaps;
 * - `card`: the changes of the cards the account receives now, read from the one card-change
 *   log every follower shares (numbered in commit order for the whole service), so an edit is
 *   one row whatever the owner's audience.
 *
 * A position in the feed is a pair, one number per log: everything up to `own` of the first and
 * up to `card` of the second has been seen. A page or a stream delivery is a merge of a prefix
 * of each log, so a pair is all a client needs to resume, with nothing missed or repeated.
 */
export interface FeedPosition {
  own: number;
  card: number;
}

export type FeedSource = keyof FeedPosition;

/** One signal of the feed: from which log, at which number of it. */
export interface FeedItem {
  source: FeedSource;
  seq: number;
  kind: SignalKindName | string;
  resource: string;
  created_at: number;
}

export const fromOwn = (record: SignalRecord): FeedItem => ({ source: 'own', seq: Number(record.seq), kind: record.kind, resource: record.resource, created_at: Number(record.created_at) });

/**
 * Interleaves the two logs' items in time order, keeping each log's own order (only the heads
 * are compared), and keeps the first `limit`: always a prefix of each, so the position after
 * the last item kept is a valid place to resume from.
 */
export function mergeFeed(own: readonly FeedItem[], card: readonly FeedItem[], limit: number): FeedItem[] {
  const merged: FeedItem[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < limit && (i < own.length || j < card.length)) {
    const takeOwn = j >= card.length || (i < own.length && own[i]!.created_at <= card[j]!.created_at);
    merged.push(takeOwn ? own[i++]! : card[j++]!);
  }
  return merged;
}

/** The position after an item, from the position before it. */
export const advance = (position: FeedPosition, item: FeedItem): FeedPosition => ({ ...position, [item.source]: item.seq });

/** Has a reader at `position` had this item already? */
export const seen = (position: FeedPosition, item: FeedItem): boolean => item.seq <= position[item.source];
