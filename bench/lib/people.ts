// People written straight into a VID SQLite file (WAL lets a second connection write while the
// service runs): accounts with one rendered profile card each, and active subscriptions of some
// readers to them, as the service would have left them. For benchmarks and for tests that need
// thousands of contacts without signing thousands of people up; only the rows matter.
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { cardContent, renderCard } from '../../src/modules/profiles/card.js';

/** Past changes per card in the log, so a sync reads a log that has history, not an empty one. */
const HISTORY = 3;

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

/**
 * `count` people, each with one profile whose card shows a nickname, an email and a phone (the
 * card builder renders it, as the service would have), its history in the card-change log, and
 * an active subscription of each reader in `readers` (the first `limits[i]` people for reader i).
 */
export function insertPeople(
  file: string,
  count: number,
  readers: Array<{ id: string; limit: number }>,
  /** `name`: person i's given and family name (the card then shows a name field too); `prefix`: their usernames'. */
  options: { name?: (i: number) => { given: string; family: string }; prefix?: string } = {},
): void {
  const name = (i: number) => (options.name ? `${options.name(i).given} ${options.name(i).family}` : `Person ${i}`);
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    const now = Date.now();
    // A week ago: the people were followed long since (a subscriber's daily request limit counts the last day).
    const then = now - 7 * 86_400_000;
    const account = db.prepare('insert into accounts (id, username, username_canonical, username_skeleton, display_name, user_handle, region, version, created_at) values (?, ?, ?, ?, ?, ?, ?, 1, ?)');
    const profile = db.prepare("insert into profiles (id, account_id, name, name_key, description, public, version, created_at, updated_at, card_json, card_hash, card_etag, card_updated_at) values (?, ?, 'Friends', 'friends', null, 0, 1, ?, ?, ?, ?, ?, ?)");
    const subscription = db.prepare("insert into subscriptions (id, owner_id, subscriber_id, profile_id, status, version, created_at, updated_at, card_since) values (?, ?, ?, ?, 'active', 1, ?, ?, ?)");
    const log = db.prepare('insert into card_change_log (seq, owner_id, profile_id, subscriber_id, changed_at) values (?, ?, ?, ?, ?)');
    db.transaction(() => {
      const { region } = db.prepare('select region from accounts where id = ?').get(readers[0]!.id) as { region: string };
      let seq = Number((db.prepare('select seq from card_change_log_head where id = 1').get() as { seq: number }).seq);
      for (let i = 0; i < count; i++) {
        const id = newId('acc');
        const username = `${options.prefix ?? 'benchdavowner'}${process.pid}x${i}`;
        account.run(id, username, username, username, name(i), randomBytes(32).toString('base64url'), region, then);
        const field = (n: number, type: string, value: unknown, details: object) => ({ field_id: `fld_${i}x${n}`, label: null, position: n, type, field_label: null, country: type === 'phone' ? 'DE' : null, value: JSON.stringify(value), details: JSON.stringify(details) });
        const card = renderCard(
          cardContent({ username, display_name: name(i) }, [
            field(0, 'nickname', `Person number ${i}`, {}),
            field(1, 'email', `person${i}@example.org`, {}),
            field(2, 'phone', '+49 30 22732152', { line_type: 'fixed_line', national: '030 22732152', international: '+49 30 22732152', uri: 'tel:+49-30-22732152' }),
            ...(options.name ? [field(3, 'name', options.name(i), { formatted: name(i) })] : []),
          ]),
          then,
        );
        const profileId = newId('prf');
        profile.run(profileId, id, then, then, card.json, card.hash, card.etag, card.updatedAt);
        for (let h = 0; h < HISTORY; h++) log.run(++seq, id, profileId, null, then);
        for (const reader of readers) {
          if (i >= reader.limit) continue;
          subscription.run(newId('sub'), id, reader.id, profileId, then, then, then);
          log.run(++seq, id, null, reader.id, then);
        }
      }
      db.prepare('update card_change_log_head set seq = ? where id = 1').run(seq);
    })();
  } finally {
    db.close();
  }
}
