/**
 * The read side, in one place: the counterpart of wiring.ts. wiring.ts says who announces a change
 * and who follows it inside the change's transaction; this file says how a change reaches the
 * people who read it afterwards, and which rules keep every reader right. Each rule names the
 * test that fails when it is broken (test/contract/read-side.test.ts checks they exist).
 *
 * A field edit, from the owner's form to a follower's screen and phone:
 *
 *   PATCH /me/fields/{id}            fields/service.ts        the field changes, in a transaction
 *     → fields.onChange               wiring.ts                profiles.followChange
 *     → every card that shows it      profiles/card-refresh.ts re-rendered (card.ts); updated_at moves
 *                                                              only when what it shows changed
 *     → profiles.onCardsChanged       wiring.ts                cardChanges.cardsChanged: one row
 *                                                              per changed card in the card-change
 *                                                              log (edited = 1), whatever the
 *                                                              audience, appended last (rule 1)
 *     → the owner's own signal        platform/signals         committed with the change; every
 *                                                              node forgets the owner's public card
 *                                                              (profiles/public-card-cache.ts, rule 2)
 *   commit
 *     → followers:<owner> wake-up     platform/signals/hub.ts  in process (SQLite) or one
 *                                                              pg_notify (PostgreSQL), after the
 *                                                              answer was sent (decision 220)
 *     → each follower's stream        signals/service.ts       its feed: its own signals merged
 *                                                              with cardChanges.feed.editsAfter,
 *                                                              the edits of the cards it receives
 *                                                              now, made after it was let in (rule 4)
 *                                     card-changes/statements.ts
 *                                                              the one question every reader asks:
 *                                                              which rows after T concern follower F
 *     → contact.card.changed          client/src/resources.ts  the resource cache reads
 *                                                              /contacts/{id}/card again, with
 *                                                              If-None-Match
 *     → GET /contacts/{id}/card       contacts/contacts.ts     cardOf: the one audience rule (rule 3)
 *   a phone's next sync
 *     → REPORT sync-collection        card-changes/service.ts  changesSince: the people whose card
 *                                                              changed for it after its token (the
 *                                                              same question, each owner's newest
 *                                                              row), then contacts.addressCards (rule 3)
 */
export interface ReadSideRule {
  /** The rule, as a reviewer checks it. */
  rule: string;
  /** Why a reader depends on it. */
  because: string;
  /** The test that fails when the rule is broken. */
  heldBy: string;
}

/** Every reader of what changed, and what it reads. */
export const READERS = {
  'signal feed (GET /events, the stream)': 'signals/service.ts: own signals + cardChanges.feed.editsAfter (statements.ts: each contact\'s newest edit)',
  'live wake-ups': 'platform/signals/follower-index.ts: followers:<owner>, indexed by cardChanges.feed.following',
  'address book (CardDAV sync)': 'card-changes/service.ts: changesSince (statements.ts: each owner\'s newest row), currentToken (CTag: the newest row), through address-book/service.ts',
  'a contact\'s card, the list with include=card, vCards': 'contacts/contacts.ts: cardOf, addressCards',
  'the public card': 'profiles/public-card-cache.ts, forgotten on every signal of its owner',
  'a photo on a card': 'card-photos: who may see a photo is who receives a card that shows it',
} as const;

export const READ_SIDE_RULES: readonly ReadSideRule[] = [
  {
    rule: 'A change appends to the card-change log last in its transaction, and its rows take their positions in commit order: a row at or below a head read committed before it',
    because: 'feed cursors and sync tokens are positions of the log: a row that committed late below a position already read would be missed (decisions 180, 220, 342)',
    heldBy: 'test/http/card-change-race.test.ts',
  },
  {
    rule: 'Every change that alters a public card signals its owner',
    because: 'the public card is served from each node\'s cache, which forgets an owner\'s card on the owner\'s signals only (decision 240)',
    heldBy: 'test/http/read-side-public-card.test.ts',
  },
  {
    rule: 'Whatever a follower reads of a card goes through the one audience rule, and the log carries no card content',
    because: 'the JSON card, the listed card, the vCard and the address book must show the same people the same card',
    heldBy: 'test/http/contacts-model.test.ts',
  },
  {
    rule: 'A follower hears only of edits made after it was let in, and never after it was let go',
    because: 'an edit before an approval or after a revocation is not that follower\'s to hear of',
    heldBy: 'test/http/signals-card-feed.test.ts',
  },
  {
    rule: 'A sync never misses a change that commits late, and answers the same people as a full read',
    because: 'a phone keeps its token for weeks: a missed change is a stale card until the next edit',
    heldBy: 'test/http/address-book-sync.test.ts',
  },
  {
    rule: 'Every reader asks the log one question (card-changes/statements.ts), and its two strategies (the stretch near the head, the cards further behind) answer alike',
    because: 'a feed, a sync and a CTag that disagree about what changed would show a follower a card its phone never gets, or the reverse',
    heldBy: 'test/store/fast-paths.test.ts',
  },
];
