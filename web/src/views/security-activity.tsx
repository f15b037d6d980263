// "Recent activity" on the Security screen: the security log, newest first, ten at a time, in
// words a person reads at a glance. Every page is a cache entry, so signals keep them current.
import { useState } from 'preact/hooks';
import type { SecurityLogEntry } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { Empty, Loaded, Section } from '../ui/layout.js';
import { locationText, placeText } from '../ui/place.js';
import type { Place } from '../ui/place.js';
import { when } from '../ui/words.js';

const PAGE_SIZE = 10;
export const activityKey = (cursor?: string) => `/auth/security-log?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/** The log's kinds in plain words; a kind a newer server adds is shown as "Account change". */
const WHAT: Record<string, string> = {
  account_created: 'Account created',
  signed_in: 'Signed in',
  passkey_added: 'Passkey added',
  passkey_renamed: 'Passkey renamed',
  passkey_removed: 'Passkey removed',
  totp_added: 'Authenticator app added, not confirmed yet',
  totp_confirmed: 'Authenticator app confirmed',
  totp_removed: 'Authenticator app removed',
  recovery_key_downloaded: 'Recovery key downloaded',
  recovery_succeeded: 'Account recovered with the recovery key',
  recovery_failed: 'Someone tried to recover your account and failed',
  join_factor_failed: 'Someone tried to sign in on a new device with a wrong code or recovery key',
  session_revoked: 'A device was signed out',
  dav_token_created: 'Address-book password made',
  dav_token_revoked: 'Address-book password revoked',
  account_deleted: 'Account deleted',
  account_restored: 'Account restored',
  account_locked: 'Account locked by the service',
  account_unlocked: 'Account unlocked by the service',
};
/** Entries that deserve a second look. */
const WARN = new Set(['recovery_failed', 'join_factor_failed', 'account_locked']);

function Entry({ entry }: { entry: SecurityLogEntry }) {
  const given = (entry as SecurityLogEntry & { place?: Place | null }).place;
  const place = given ? placeText(given) : locationText(entry.location);
  return (
    <li data-kind={entry.kind} class={WARN.has(entry.kind) ? 'warn' : undefined}>
      <div class="item-main">
        <strong>{WHAT[entry.kind] ?? 'Account change'}</strong>
        <div class="item-meta">{[when(entry.at), entry.device_label, place].filter(Boolean).join(' · ')}</div>
      </div>
    </li>
  );
}

/** One page of the log; the last shown page offers the next one. */
function LogPage({ cursor, last, onMore }: { cursor?: string; last: boolean; onMore: (cursor: string) => void }) {
  const page = useResource<ListPage<SecurityLogEntry>>(activityKey(cursor));
  return (
    <Loaded state={page} lines={cursor ? 2 : 4}>
      {(p) => (
        <>
          {p.data.length ? <ul class="items activity">{p.data.map((e) => <Entry key={e.id} entry={e} />)}</ul> : cursor ? null : <Empty>Nothing has happened yet.</Empty>}
          {last && p.has_more && p.next_cursor ? <button type="button" id="activity-older" onClick={() => onMore(p.next_cursor!)}>Show older</button> : null}
        </>
      )}
    </Loaded>
  );
}

export function RecentActivity() {
  // Which older pages are open: where the person is in the list, not server state.
  const [cursors, setCursors] = useState<string[]>([]);
  const pages = [undefined, ...cursors];
  return (
    <Section title="Recent activity" id="activity">
      <p class="hint">Sign-ins and changes to how you sign in, newest first. Something you do not recognise? <a href="/sessions" data-link>Sign out that device</a>, remove any passkey you do not know, and keep your recovery key safe.</p>
      {pages.map((cursor, i) => <LogPage key={cursor ?? 'first'} cursor={cursor} last={i === pages.length - 1} onMore={(next) => setCursors([...cursors, next])} />)}
    </Section>
  );
}
