// Where you are signed in, each device by name and approximate place (never its user-agent
// string), this one marked; any other can be signed out. Kept current by sessions.changed.
import type { Session } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client } from '../core/client.js';
import { navigate } from '../core/router.js';
import { FormError, useAction } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { placeText } from '../ui/place.js';
import type { Place } from '../ui/place.js';
import { ago } from '../ui/words.js';

export const SESSIONS = '/auth/sessions?limit=50';

/** Where a session signed in from, approximately ("Berlin, Germany"), when the server knows. */
const placeOf = (s: Session) => placeText((s as Session & { place?: Place | null }).place);

function SessionItem({ s }: { s: Session }) {
  const revoke = useAction(async () => {
    await client.sessions.revoke(s.id);
    if (s.current) navigate('/');
  }, { done: s.current ? 'Signed out.' : 'That device is signed out.' });
  const place = placeOf(s);
  return (
    <li data-session={s.id}>
      <div class="item-main">
        <strong>{s.device_label}</strong>
        {s.current ? <span class="tag">This device</span> : null}
        <div class="item-meta">{[place, s.trusted ? 'Kept signed in' : 'Signed in for now only'].filter(Boolean).join(' · ')}</div>
        <div class="item-meta">Signed in {ago(s.created_at)} · last active {ago(s.last_seen_at)}</div>
        <FormError action={revoke} />
      </div>
      <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.run()}
        aria-label={s.current ? 'Sign out on this device' : `Sign out ${s.device_label}`}>
        Sign out
      </button>
    </li>
  );
}

export default function Sessions() {
  const sessions = useResource<ListPage<Session>>(SESSIONS);
  return (
    <>
      <PageHead title="Sessions" lead="Where you are signed in. Sign out anything you do not recognise." />
      <Section title="Signed-in devices">
        <Loaded state={sessions}>
          {(page) => page.data.length
            ? <ul class="items" id="sessions">{page.data.map((s) => <SessionItem key={s.id} s={s} />)}</ul>
            : <Empty>You are signed in nowhere else.</Empty>}
        </Loaded>
      </Section>
    </>
  );
}
