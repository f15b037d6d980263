import { createHash } from 'node:crypto';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { resourceOf } from '../../platform/signals/catalogue.js';
import type { Signal } from '../../platform/signals/catalogue.js';
import { advance, fromOwn, mergeFeed } from '../../platform/signals/feed.js';
import type { FeedItem, FeedPosition } from '../../platform/signals/feed.js';
import type { SignalRecord, signalLog } from '../../platform/signals/log.js';
import type { CardEdit } from '../card-changes/service.js';
import type { RepositoryOf } from '../../platform/store/store.js';

/**
 * The signal feed as clients see it (PRODUCT §7): polling, cursors, retention.
 *
 * A feed is an account's own signals and the edits of the cards it receives now, read from the
 * card-change log every follower shares (feed.ts, decision 220). A cursor names a position in
 * both: base64url of `2.<own>.<card>.<account tag>`, the tag being 66 bits of SHA-256 over the
 * account id. So a cursor handed to another account, or made up, is recognised and refused
 * (400 invalid_cursor, the same answer as for a malformed one: nothing about the other account
 * shows), and a position whose own successor has been pruned is recognised as expired (410
 * cursor_expired). A cursor of the first form (`1.<seq>.<tag>`, before card edits were read
 * from the shared log) is 410 as well: it cannot say which card edits were seen, and the
 * client's answer to 410 (pull again, continue from a fresh cursor) loses nothing.
 * See docs/decisions/020-event-signals.md.
 */
export interface SignalPage {
  data: Signal[];
  /** Always set: pass it as `since` next time (the position after the last signal returned). */
  next_cursor: string;
  has_more: boolean;
}

/** The card edits of a feed: the address book's card-change log (card-changes/service.ts `feed`). */
export interface CardEditFeed {
  head(): Promise<number>;
  editsAfter(subscriberId: string, after: number, head: number, limit: number, notBefore?: number): Promise<CardEdit[]>;
}

const DAY_MS = 86_400_000;
const NUMBER = '(0|[1-9]\\d{0,14})';
const CURSOR = new RegExp(`^2\\.${NUMBER}\\.${NUMBER}\\.([A-Za-z0-9_-]{11})$`);
const FIRST_FORM = new RegExp(`^1\\.${NUMBER}\\.([A-Za-z0-9_-]{11})$`);

function accountTag(accountId: string): string {
  return createHash('sha256').update(`vid.events.cursor:${accountId}`).digest('base64url').slice(0, 11);
}

export function encodeSignalCursor(accountId: string, position: FeedPosition): string {
  return Buffer.from(`2.${position.own}.${position.card}.${accountTag(accountId)}`).toString('base64url');
}

function invalidCursor() {
  return refuse('invalid_cursor', 'the cursor is malformed or was not issued to this account; start again without one');
}

/** The position a cursor names, if it is well-formed and belongs to this account. */
export function decodeSignalCursor(accountId: string, cursor: string, expired: () => Error): FeedPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Re-encoding must give the cursor back: one spelling per position, no padding variants.
  if (Buffer.from(text).toString('base64url') !== cursor) throw invalidCursor();
  const match = CURSOR.exec(text);
  if (match && match[3] === accountTag(accountId)) return { own: Number(match[1]), card: Number(match[2]) };
  const first = FIRST_FORM.exec(text);
  if (first && first[2] === accountTag(accountId)) throw expired();
  throw invalidCursor();
}

const cardItem = (edit: CardEdit): FeedItem => ({
  source: 'card',
  seq: edit.seq,
  kind: 'contact.card.changed',
  resource: resourceOf('contact.card.changed', { id: edit.contact_id }),
  created_at: edit.changed_at,
});

export function createSignalService(deps: { db: RepositoryOf<{ log: typeof signalLog }>; cards: CardEditFeed; clock: Clock; retentionDays: number }) {
  const { clock, cards } = deps;
  const log = deps.db.direct.log;

  function cursorExpired() {
    return refuse(
      'cursor_expired',
      `signals after this cursor were older than ${deps.retentionDays} days and are gone; pull your resources again and continue from a fresh cursor`,
    );
  }

  const decode = (accountId: string, cursor: string) => decodeSignalCursor(accountId, cursor, cursorExpired);

  function toSignal(accountId: string, item: FeedItem, position: FeedPosition): Signal {
    return { id: encodeSignalCursor(accountId, position), kind: item.kind, resource: item.resource, at: new Date(item.created_at).toISOString() };
  }

  /**
   * Checks a client's position against the logs: 400 when it is past either head (never
   * issued), 410 when the own signal right after it has been pruned (the client would miss
   * something). `rows` are the own signals after it, read after `heads`, so none committed
   * meanwhile is mistaken for a gap. The card-change log is never pruned.
   */
  function checkResumable(position: FeedPosition, heads: FeedPosition, rows: SignalRecord[]): void {
    if (position.own > heads.own || position.card > heads.card) throw invalidCursor();
    if (position.own < heads.own && rows[0]?.seq !== position.own + 1) throw cursorExpired();
  }

  async function headsOf(accountId: string): Promise<FeedPosition> {
    const [own, card] = await Promise.all([log.head(accountId), cards.head()]);
    return { own, card };
  }

  /** Signals past the retention are gone for readers, even the one the log keeps for its number. */
  const retainedSince = () => clock.now() - deps.retentionDays * DAY_MS;
  const ownAfter = (accountId: string, afterSeq: number, limit: number) => log.listAfter(accountId, afterSeq, limit, retainedSince());

  /**
   * Both logs after a position, merged: at most `limit` items, a prefix of each log. A stream
   * woken only by a card edit reads only the card-change log (`own: false`, platform/signals/catch-up.ts).
   */
  async function read(accountId: string, after: FeedPosition, limit: number, parts = { own: true }): Promise<FeedItem[]> {
    const [own, edits] = await Promise.all([parts.own ? ownAfter(accountId, after.own, limit) : [], cards.head().then((head) => cards.editsAfter(accountId, after.card, head, limit))]);
    return mergeFeed(own.map(fromOwn), edits.map(cardItem), limit);
  }

  return {
    toSignal,
    read,

    /**
     * Where a stream starts: after the client's cursor (validated as for polling), or, without
     * one, at the newest position (a new stream delivers what happens from now on).
     */
    async streamStart(accountId: string, cursor: string | undefined): Promise<FeedPosition> {
      const heads = await headsOf(accountId);
      if (cursor === undefined) return heads;
      const position = decode(accountId, cursor);
      checkResumable(position, heads, position.own < heads.own ? await ownAfter(accountId, position.own, 1) : []);
      return position;
    },

    cursorAt: encodeSignalCursor,

    /** GET /events: signals after the cursor (from the oldest retained one without), oldest first. */
    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<SignalPage> {
      const accountId = auth.account.id;
      const heads = await headsOf(accountId);
      const start = cursor === undefined ? { own: 0, card: 0 } : decode(accountId, cursor);
      const [own, edits] = await Promise.all([
        ownAfter(accountId, start.own, limit + 1),
        // Without a cursor, the card edits of the retention, as for the own signals.
        cards.editsAfter(accountId, start.card, heads.card, limit + 1, cursor === undefined ? retainedSince() : 0),
      ]);
      if (cursor !== undefined) checkResumable(start, heads, own);
      const page = mergeFeed(own.map(fromOwn), edits.map(cardItem), limit);
      const has_more = page.length < own.length + edits.length;
      let position = start;
      const data = page.map((item) => toSignal(accountId, item, (position = advance(position, item))));
      if (!has_more) {
        // Everything up to the heads is in this page: the next poll starts there (its read of the
        // card log is then only what came after), and so does the last signal's id. Without a
        // cursor and no own signal retained, the own log continues from its newest position.
        const ownRetained = page.some((item) => item.source === 'own');
        position = { own: cursor === undefined && !ownRetained ? Math.max(position.own, heads.own) : position.own, card: Math.max(position.card, heads.card) };
        if (data.length) data[data.length - 1]!.id = encodeSignalCursor(accountId, position);
      }
      return { data, next_cursor: encodeSignalCursor(accountId, position), has_more };
    },
    /** The background pruner: signals older than the retention go (each account's newest stays, unread). */
    prune(): Promise<number> {
      return log.prune(clock.now() - deps.retentionDays * DAY_MS);
    },
  };
}

export type SignalService = ReturnType<typeof createSignalService>;
