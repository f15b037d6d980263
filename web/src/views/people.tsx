// People: who sees your cards. Requests wait for a decision (approve onto a profile, deny, deny
// and block); the people you share with are grouped by the profile they see, and can be moved to
// another one or lose access; blocked people can be unblocked. The lists come from the resource
// cache, kept current by subscriptions.changed and profiles.changed, so a request made a moment
// ago appears without a reload; a profile picked in a row stays picked while they change.
import { useEffect, useId, useState } from 'preact/hooks';
import type { Profile, Subscription } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { cache, useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client } from '../core/client.js';
import { nameOf } from '../ui/card.js';
import { Confirm, Field, FormError, useAction } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { PersonLine } from '../ui/person-line.js';
import { handleOf } from '../ui/region.js';
import { ago } from '../ui/words.js';
import { PROFILES } from './profiles.js';

interface Blocked {
  username: string;
  display_name: string | null;
  /** Theirs: another region's person is unblocked as `alice@eu`. */
  region?: string;
  blocked_at: string;
}

// The same entry as the bar's badge for waiting requests (ui/shell.tsx).
const PENDING = '/subscriptions?status=pending&limit=100';
const ACTIVE = '/subscriptions?status=active&limit=200';
const BLOCKS = '/blocks?limit=200';

/** A change that another device made first: say so, the lists already show how it is now. */
const movedOn = (error: unknown) =>
  isProblem(error, 'invalid_transition') || isProblem(error, 'subscription_not_found')
    ? { message: 'That changed on another device meanwhile; here is how it is now.', boxes: {} }
    : undefined;

/** Every change here ends the same way: the lists are read again. */

/** A profile picker; its choice is the row's own until it is used. */
function ProfilePicker({ label, profiles, value, onValue }: { label: string; profiles: Profile[]; value: string; onValue: (id: string) => void }) {
  const id = useId();
  return (
    <Field label={label} id={id}>
      {(aria) => (
        <select {...aria} name="profile_id" value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value)}>
          {profiles.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      )}
    </Field>
  );
}

/** How the request came: through which of your share links, named by your label for it. */
function viaLink(sub: Subscription): string {
  if (!sub.via_share_link) return '';
  return sub.via_share_link.label ? ` through your link “${sub.via_share_link.label}”` : ' through one of your share links';
}

function Request({ sub, profiles }: { sub: Subscription; profiles: Profile[] }) {
  const name = nameOf(sub.subscriber);
  const [picked, setPicked] = useState('');
  // The link's profile first (PRODUCT §4): a request through a work card's link is approved
  // onto the work profile unless the person picks another, never onto whichever is listed first.
  const suggested = profiles.find((p) => p.id === sub.suggested_profile_id)?.id;
  const profileId = profiles.find((p) => p.id === picked)?.id ?? suggested ?? profiles[0]?.id ?? '';
  const decide = useAction(async (how: 'approve' | 'deny' | 'block') => {
    if (how === 'approve') await client.subscriptions.approve(sub.id, profileId);
    else await client.subscriptions.deny(sub.id, { block: how === 'block' });
    return how;
  }, {
    done: (how) => how === 'approve'
      ? `${name} now sees your “${profiles.find((p) => p.id === profileId)?.name ?? ''}” card.`
      : how === 'block' ? `Request denied. You will not see requests from ${name} again; they are not told.` : `Request from ${name} denied. They are not told: to them it stays unanswered.`,
    explain: movedOn,
  });
  return (
    <li data-request={sub.id}>
      <div class="item-main">
        <PersonLine who={sub.subscriber} meta={`asked ${ago(sub.created_at)}${viaLink(sub)}`} />
        {sub.message ? <blockquote class="request-message">{sub.message}</blockquote> : null}
      </div>
      <div class="decide">
        {profiles.length
          ? (
            <div class="approve-row">
              <ProfilePicker label="Approve onto" profiles={profiles} value={profileId} onValue={setPicked} />
              <button type="button" class="primary" disabled={decide.busy} aria-label={`Approve ${name}`} onClick={() => void decide.run('approve')}>Approve</button>
            </div>
          )
          : null}
        <div class="actions">
          <button type="button" disabled={decide.busy} aria-label={`Deny ${name}`} onClick={() => void decide.run('deny')}>Deny</button>
          <button type="button" class="danger" disabled={decide.busy} aria-label={`Deny and block ${name}`} onClick={() => void decide.run('block')}>Deny and block</button>
        </div>
        <FormError action={decide} />
      </div>
    </li>
  );
}

function Subscriber({ sub, profile, profiles }: { sub: Subscription; profile: Profile; profiles: Profile[] }) {
  const name = nameOf(sub.subscriber);
  const others = profiles.filter((p) => p.id !== profile.id);
  const [picked, setPicked] = useState('');
  const [confirming, setConfirming] = useState(false);
  const target = others.find((p) => p.id === picked) ?? others[0];
  const change = useAction(async (how: 'move' | 'revoke' | 'block') => {
    if (how === 'move') await client.subscriptions.move(sub.id, target!.id);
    else await client.subscriptions.revoke(sub.id, { block: how === 'block' });
    return how;
  }, {
    done: (how) => how === 'move'
      ? `${name} now sees your “${target?.name ?? ''}” card.`
      : how === 'block' ? `${name} no longer sees your card, and you will not see their requests again.` : `${name} no longer sees your card.`,
    explain: movedOn,
  });
  const revoke = <button type="button" class="danger subtle" aria-label={`Revoke ${name}…`} onClick={() => setConfirming(true)}>Revoke…</button>;
  return (
    <li data-subscriber={sub.id}>
      <div class="item-main"><PersonLine who={sub.subscriber} meta={`since ${ago(sub.created_at)}`} /></div>
      {target
        ? (
          <div class="decide">
            <div class="approve-row">
              <ProfilePicker label="Move to" profiles={others} value={target.id} onValue={setPicked} />
              <button type="button" disabled={change.busy} aria-label={`Move ${name}`} onClick={() => void change.run('move')}>Move</button>
            </div>
            <div class="actions">{revoke}</div>
          </div>
        )
        : revoke}
      {confirming
        ? (
          <Confirm label={`Stop sharing with ${name}?`} alert verb="Revoke" verbLabel={`Revoke ${name}`} action={{ busy: change.busy, run: () => change.run('revoke') }}
            also={<button type="button" class="danger" disabled={change.busy} aria-label={`Revoke and block ${name}`} onClick={() => void change.run('block')}>Revoke and block</button>}
            keep="Keep" onKeep={() => setConfirming(false)}>
            Stop sharing with {name}? They lose your card at once. They are not told why.
          </Confirm>
        )
        : null}
      <FormError action={change} />
    </li>
  );
}

function BlockedItem({ b }: { b: Blocked }) {
  const unblock = useAction(async () => {
    await client.subscriptions.unblock(handleOf(b));
  }, { done: `${nameOf(b)} can ask for your card again.` });
  return (
    <li data-blocked={handleOf(b)}>
      <div class="item-main">
        <PersonLine who={b} meta={`blocked ${ago(b.blocked_at)}`} />
        <FormError action={unblock} />
      </div>
      <button type="button" disabled={unblock.busy} aria-label={`Unblock ${nameOf(b)}`} onClick={() => void unblock.run()}>Unblock</button>
    </li>
  );
}

export default function People() {
  const profiles = useResource<ListPage<Profile>>(PROFILES);
  const pending = useResource<ListPage<Subscription>>(PENDING);
  const active = useResource<ListPage<Subscription>>(ACTIVE);
  const blocked = useResource<ListPage<Blocked>>(BLOCKS);
  // A person's name can change without a signal to those they asked (it is theirs): the lists
  // are checked once when the screen opens (a 304 each when nothing changed).
  useEffect(() => {
    for (const key of [PENDING, ACTIVE]) void cache.revalidate(key).catch(() => undefined);
  }, []);
  const all = profiles.data?.data ?? [];
  const waiting = pending.data?.data.length ?? 0;
  return (
    <>
      <PageHead title="People" lead="Who sees your cards. Approve requests onto a profile, move people to another profile, or stop sharing. Nobody learns which profile they get or who else sees you." />
      <Section title={waiting ? `Requests (${waiting})` : 'Requests'}>
        <Loaded state={pending}>
          {(page) => page.data.length
            ? (
              <>
                {profiles.data && !all.length
                  ? <p class="notice" role="note">To approve someone, choose the profile they see: <a href="/profiles" data-link>create a profile</a> first.</p>
                  : null}
                <ul class="items people" id="requests">{page.data.map((sub) => <Request key={sub.id} sub={sub} profiles={all} />)}</ul>
              </>
            )
            : <p class="empty" id="requests">No requests waiting. When someone asks for your card (by your username, or through a share link you approve yourself), they appear here.</p>}
        </Loaded>
      </Section>
      <Section title="Who sees your cards">
        <Loaded state={active}>
          {(page) => {
            if (!page.data.length) return <p class="empty" id="subscribers">Nobody yet. <a href="/share" data-link>Create a share link</a>, show its QR code, and the people who use it appear here.</p>;
            const groups = all.map((p) => ({ profile: p, subs: page.data.filter((s) => s.profile_id === p.id) })).filter((g) => g.subs.length);
            return (
              <div id="subscribers">
                {groups.map(({ profile, subs }) => (
                  <div key={profile.id} class="group" data-profile-group={profile.id} role="group" aria-labelledby={`group-${profile.id}`}>
                    <h3 id={`group-${profile.id}`}>“{profile.name}”<span class="group-count">{subs.length} {subs.length === 1 ? 'person' : 'people'}</span></h3>
                    <ul class="items people">{subs.map((sub) => <Subscriber key={sub.id} sub={sub} profile={profile} profiles={all} />)}</ul>
                  </div>
                ))}
              </div>
            );
          }}
        </Loaded>
      </Section>
      <Section title="Blocked">
        <Loaded state={blocked}>
          {(page) => page.data.length
            ? <ul class="items people" id="blocked">{page.data.map((b) => <BlockedItem key={handleOf(b)} b={b} />)}</ul>
            : <Empty>Nobody. When you deny or revoke someone, you can block them: you will not see their requests again, and they are not told.</Empty>}
        </Loaded>
      </Section>
    </>
  );
}
