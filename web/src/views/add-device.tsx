// Adding a device from this trusted one: show a code (it goes from the screen once used, or when
// wrong guesses void it: join.code.changed), and approve or deny the devices that ask, each
// named by browser and device with its approximate place, never its user-agent string.
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { useValue } from '../core/state.js';
import { FormError, useAction } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { placeText } from '../ui/place.js';
import type { Place } from '../ui/place.js';
import { ago } from '../ui/words.js';
import { useSecondsLeft } from '../ui/countdown.js';
import { stepUp } from '../webauthn.js';

type Pending = Schemas['PendingJoin'] & { place?: Place | null };
interface CodeState { status: 'active' | 'used' | 'expired' | 'voided'; expires_at: string }
const CODE_STATE = '/auth/join/code';
const PENDING = '/auth/join/pending';

/** What became of the code shown, in words; undefined while it can still be used. */
const ENDED: Record<Exclude<CodeState['status'], 'active'>, string> = {
  used: 'The code was used. Approve the device below if it is yours.',
  expired: 'The code expired. Show a new one when you are ready.',
  voided: 'Someone typed wrong codes five times, so this code no longer works. Show a new one.',
};

function ShowCode() {
  const [shown, setShown] = useState<{ code: string; expires_at: string } | undefined>(undefined);
  const state = useResource<CodeState>(shown ? CODE_STATE : undefined);
  const left = useSecondsLeft(shown?.expires_at);
  const issue = useAction(async () => {
    const issued = await client.request('POST', '/auth/join/issue', {});
    setShown({ code: issued.code, expires_at: issued.expires_at });
  });
  const status = state.data && state.data.expires_at === shown?.expires_at ? state.data.status : 'active';
  const ended = shown ? (left === 0 ? ENDED.expired : status !== 'active' ? ENDED[status] : undefined) : undefined;
  return (
    <Section title="Show a code" id="show-code">
      {shown && !ended ? (
        <div class="code-box">
          <p>On the new device, choose “Join with a code”, then enter your username and:</p>
          <p class="code" id="join-code" aria-label={`Code ${shown.code.split('').join(' ')}`}>{shown.code}</p>
          <p class="hint" aria-live="off">Works for {left} more seconds, once.</p>
          <button type="button" onClick={() => setShown(undefined)}>Cancel</button>
        </div>
      ) : (
        <>
          {ended ? <p class="msg" role="status" id="code-ended">{ended}</p> : <p>A code lets a new phone or computer sign in to your account, once you approve it here.</p>}
          <button type="button" class="primary" id="issue-code" disabled={issue.busy} onClick={() => void issue.run()}>{ended ? 'Show a new code' : 'Show a code'}</button>
        </>
      )}
      <FormError action={issue} />
    </Section>
  );
}

function Request({ p }: { p: Pending }) {
  const approve = useAction(async () => {
    await client.request('POST', '/auth/join/approve', { body: { attempt_id: p.attempt_id }, stepUp });
  }, { done: 'Approved: the new device can finish signing in.' });
  const deny = useAction(async () => {
    await client.request('POST', '/auth/join/deny', { body: { attempt_id: p.attempt_id } });
  }, { done: 'Denied: that device is not signed in.' });
  const place = placeText(p.place);
  return (
    <li data-attempt={p.attempt_id}>
      <div class="item-main">
        <strong>{p.device_label}</strong>
        <div class="item-meta" data-testid="join-place">{[place ? `Near ${place}` : '', `asked ${ago(p.created_at)}`].filter(Boolean).join(' · ')}</div>
        <p>{p.via === 'code' ? 'Is this you, signing in on a new device?' : 'Someone started signing in without a code. If it is not you, deny it.'}</p>
        <FormError action={approve} />
        <FormError action={deny} />
      </div>
      <div class="actions">
        {p.via === 'code' ? <button type="button" class="primary" disabled={approve.busy} onClick={() => void approve.run()} aria-label={`Approve ${p.device_label}`}>Approve</button> : null}
        <button type="button" class="danger" disabled={deny.busy} onClick={() => void deny.run()} aria-label={`Deny ${p.device_label}`}>Deny</button>
      </div>
    </li>
  );
}

export default function AddDevice() {
  const trusted = useValue(session)?.trusted ?? false;
  const pending = useResource<ListPage<Pending>>(trusted ? PENDING : undefined);
  if (!trusted) {
    return (
      <>
        <PageHead title="Add a device" />
        <p class="notice" role="note">This device is signed in for now only. Add devices from one you keep.</p>
      </>
    );
  }
  return (
    <>
      <PageHead title="Add a device" lead="Sign in on a new phone or computer without a password." />
      <ShowCode />
      <Section title="Devices asking to join" id="pending-section">
        <Loaded state={pending} lines={2}>
          {(page) => page.data.length ? <ul class="items" id="pending">{page.data.map((p) => <Request key={p.attempt_id} p={p} />)}</ul> : <Empty>No device is asking. Show a code, and the device that uses it appears here.</Empty>}
        </Loaded>
      </Section>
    </>
  );
}
