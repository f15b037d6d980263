import { createHash } from 'node:crypto';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import type { Signal } from '../../platform/signals/catalogue.js';
import type { SignalRecord, signalLog } from '../../platform/signals/log.js';
import type { RepositoryOf } from '../../platform/store/store.js';

/**
 * The signal log as clients see it (PRODUCT §7): polling, cursors, retention.
 *
 * A cursor names a position in one account's gap-free sequence: base64url of
 * `1.<seq>.<account tag>`, the tag being 66 bits of SHA-256 over the account id. So a cursor
 * handed to another account, or made up, is recognised and refused (400 invalid_cursor, the
 * same answer as for a malformed one: nothing about the other account shows), and a position
 * whose successor has been pruned is recognised as expired (410 cursor_expired). See
 * docs/decisions/020-event-signals.md.
 */
export interface SignalPage {
  data: Signal[];
  /** Always set: pass it as `since` next time (the position after the last signal returned). */
  next_cursor: string;
  has_more: boolean;
}

const DAY_MS = 86_400_000;
const CURSOR = /^1\.(0|[1-9]\d{0,14})\.([A-Za-z0-9_-]{11})$/;

function accountTag(accountId: string): string {
  return createHash('sha256').update(`vid.events.cursor:${accountId}`).digest('base64url').slice(0, 11);
}

export function encodeSignalCursor(accountId: string, seq: number): string {
  return Buffer.from(`1.${seq}.${accountTag(accountId)}`).toString('base64url');
}

function invalidCursor() {
  return refuse('invalid_cursor', 'the cursor is malformed or was not issued to this account; start again without one');
}

/** The sequence number a cursor names, if it is well-formed and belongs to this account. */
export function decodeSignalCursor(accountId: string, cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = CURSOR.exec(text);
  // Re-encoding must give the cursor back: one spelling per position, no padding variants.
  if (!match || Buffer.from(text).toString('base64url') !== cursor || match[2] !== accountTag(accountId)) throw invalidCursor();
  return Number(match[1]);
}

export function createSignalService(deps: { db: RepositoryOf<{ log: typeof signalLog }>; clock: Clock; retentionDays: number }) {
  const { clock } = deps;
  const log = deps.db.direct.log;

  function cursorExpired() {
    return refuse(
      'cursor_expired',
      `signals after this cursor were older than ${deps.retentionDays} days and are gone; pull your resources again and continue from a fresh cursor`,
    );
  }

  function toSignal(record: SignalRecord): Signal {
    return {
      id: encodeSignalCursor(record.account_id, record.seq),
      kind: record.kind,
      resource: record.resource,
      at: new Date(Number(record.created_at)).toISOString(),
    };
  }

  /**
   * Checks a client's cursor against the log: 400 when it was never issued to this account,
   * 410 when the signal right after it has been pruned (the client would miss something).
   * `rows` are the signals after it, read after `head`, so none committed meanwhile is
   * mistaken for a gap.
   */
  function checkResumable(seq: number, head: number, rows: SignalRecord[]): void {
    if (seq > head) throw invalidCursor();
    if (seq < head && rows[0]?.seq !== seq + 1) throw cursorExpired();
  }

  async function headOf(accountId: string): Promise<number> {
    return log.head(accountId);
  }

  /** Signals past the retention are gone for readers, even the one the log keeps for its number. */
  const retainedSince = () => clock.now() - deps.retentionDays * DAY_MS;
  const listAfter = (accountId: string, afterSeq: number, limit: number) => log.listAfter(accountId, afterSeq, limit, retainedSince());

  return {
    toSignal,
    read: listAfter,

    /**
     * Where a stream starts: after the client's cursor (validated as for polling), or, without
     * one, at the newest signal (a new stream delivers what happens from now on).
     */
    async streamStart(accountId: string, cursor: string | undefined): Promise<number> {
      const head = await headOf(accountId);
      if (cursor === undefined) return head;
      const seq = decodeSignalCursor(accountId, cursor);
      checkResumable(seq, head, seq < head ? await listAfter(accountId, seq, 1) : []);
      return seq;
    },

    cursorAt: encodeSignalCursor,

    /** GET /events: signals after the cursor (from the oldest retained one without), oldest first. */
    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<SignalPage> {
      const accountId = auth.account.id;
      const head = await headOf(accountId);
      const seq = cursor === undefined ? 0 : decodeSignalCursor(accountId, cursor);
      const rows = await listAfter(accountId, seq, limit + 1);
      if (cursor !== undefined) checkResumable(seq, head, rows);
      const has_more = rows.length > limit;
      const page = has_more ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      // Without a cursor and with nothing retained, the client continues from the newest position.
      const next = last ? last.seq : cursor === undefined ? Math.max(head, 0) : seq;
      return { data: page.map(toSignal), next_cursor: encodeSignalCursor(accountId, next), has_more };
    },

    /** The background pruner: signals older than the retention go (each account's newest stays, unread). */
    prune(): Promise<number> {
      return log.prune(clock.now() - deps.retentionDays * DAY_MS);
    },
  };
}

export type SignalService = ReturnType<typeof createSignalService>;
