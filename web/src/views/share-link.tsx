// /s/#<token> (and /s/<token> of older links): the page a share link (or its QR code) opens, for anyone. It says whose card it is
// and whether they approve each request, and never which of their profiles the link gives: a
// profile's name is its owner's private word for an audience (PRODUCT §6, "Nobody learns which
// profile they get"), so the server does not send it. Signed out, it offers sign-in or sign-up
// and comes back here afterwards; signed in, "Follow" redeems the link and goes to the contact.
import type { Contact, Me } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { useEffect, useState } from 'preact/hooks';
import { cache, useResource } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { navigate, path, rememberReturn } from '../core/router.js';
import { useValue } from '../core/state.js';
import { toast } from '../core/toast.js';
import { nameOf } from '../ui/card.js';
import { FormError, useAction } from '../ui/form.js';
import { Failed, Skeleton } from '../ui/layout.js';
import { day, initials } from '../ui/words.js';

/** What GET /share-links/resolve answers: whose link it is, nothing about the profile. */
interface Resolved {
  owner: { username: string; display_name: string | null };
  auto_approve: boolean;
  expires_at: string | null;
}

/** A link that is gone or never was, in words, with the way on. */
function Problem({ title, text }: { title: string; text: string }) {
  return (
    <div class="public-page">
      <section class="card empty-state" id="share-link-problem">
        <h1>{title}</h1>
        <p>{text}</p>
        <p><a href="/" data-link>Go to VID</a></p>
      </section>
    </div>
  );
}

function problemOf(error: unknown) {
  if (isProblem(error) && error.status === 410) {
    return <Problem title="This link no longer works" text="It was turned off, has expired or has been used as often as allowed. Ask the person who shared it for a new link." />;
  }
  if (isProblem(error) && (error.status === 404 || error.status === 400)) {
    return <Problem title="This link is not valid" text="No card is shared under this link. Check that you copied all of it, or ask the person who shared it to send it again." />;
  }
  return undefined;
}

/** Sends someone to sign in or up (the welcome screen puts the focus in the box the hash names) and back here afterwards. */
function toWelcome(here: string, to: '/#sign-in' | '/#sign-up') {
  return (event: Event) => {
    event.preventDefault();
    rememberReturn(here);
    navigate(to);
  };
}

function Subscribe({ token, name, me }: { token: string; name: string; me: Me }) {
  const subscribe = useAction(async () => {
    const contact: Contact = await client.shareLinks.redeem(token);
    // Redeeming a link (a POST below /share-links) adds a contact: a change the path cannot say.
    await cache.invalidate('/contacts');
    navigate(`/contacts?c=${encodeURIComponent(contact.id)}`);
    toast(contact.status === 'active' ? `You now see ${name}’s card.` : `Request sent. You see ${name}’s card once they approve it.`);
  }, {
    explain: (error) => {
      if (isProblem(error, 'already_subscribed')) {
        const id = (error.problem as { contact_id?: string }).contact_id;
        navigate(id ? `/contacts?c=${encodeURIComponent(id)}` : '/contacts');
        toast(`You already subscribe to ${name}.`);
        return { boxes: {} };
      }
      if (isProblem(error) && (error.status === 410 || error.status === 404)) {
        // The link went meanwhile: the page reads it again and says so.
        void cache.revalidate(`/share-links/resolve?token=${encodeURIComponent(token)}`).catch(() => undefined);
        return { boxes: {} };
      }
      return undefined;
    },
  });
  return (
    <>
      <div class="invite-actions">
        <button type="button" class="primary" id="subscribe" disabled={subscribe.busy} onClick={() => void subscribe.run()}>
          {subscribe.busy ? 'Following…' : 'Follow'}
        </button>
      </div>
      <p class="hint">Signed in as @{me.username}. {name} sees your name and username, and nothing else about you.</p>
      <FormError action={subscribe} />
    </>
  );
}

function Next({ token, link, name }: { token: string; link: Resolved; name: string }) {
  const here = `/s/#${encodeURIComponent(token)}`;
  const signedIn = useValue(session);
  const me = useResource<Me>(signedIn ? '/me' : undefined);
  if (!signedIn) {
    return (
      <>
        <p>To see the card and keep it up to date, sign in to VID or create a free account with a passkey. You come back to this page afterwards.</p>
        <div class="invite-actions">
          <a class="button primary" href="/#sign-in" id="invite-sign-in" onClick={toWelcome(here, '/#sign-in')}>Sign in</a>
          <a class="button" href="/#sign-up" id="invite-sign-up" onClick={toWelcome(here, '/#sign-up')}>Create an account</a>
        </div>
      </>
    );
  }
  if (!me.data) return me.error !== undefined && !me.loading ? <Failed error={me.error} /> : <Skeleton lines={1} />;
  if (me.data.username === link.owner.username) {
    return (
      <>
        <p class="notice" role="note">This is your own link. Show its QR code or send it to the people you want to share your card with.</p>
        <div class="invite-actions"><a class="button" href="/share" data-link>Your share links</a></div>
      </>
    );
  }
  return <Subscribe token={token} name={name} me={me.data} />;
}

/**
 * The link's token: from the fragment (/s/#<token>), or from the path of a link made before
 * (/s/<token>), which is then rewritten to the fragment form so that a reload, a bookmark or a
 * copied address no longer sends it to a server.
 */
function tokenHere(at: string): string {
  if (at !== '/s/') {
    const token = decodeURIComponent(at.slice('/s/'.length));
    history.replaceState(null, '', `/s/#${encodeURIComponent(token)}`);
    return token;
  }
  return decodeURIComponent(location.hash.slice(1));
}

export default function ShareLink() {
  const at = useValue(path);
  const [token, setToken] = useState(() => tokenHere(at));
  // Another link opened in the same tab changes only the fragment.
  useEffect(() => {
    const read = () => setToken(decodeURIComponent(location.hash.slice(1)));
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  const signedIn = useValue(session);
  const link = useResource<Resolved>(`/share-links/resolve?token=${encodeURIComponent(token)}`);
  if (link.data === undefined) {
    if (link.error !== undefined && !link.loading) {
      return problemOf(link.error) ?? <div class="public-page"><Failed error={link.error} /></div>;
    }
    return <div class="public-page"><Skeleton lines={4} /></div>;
  }
  // Read again after it was shown, the link may have gone meanwhile (revoked, used up).
  const gone = link.error !== undefined ? problemOf(link.error) : undefined;
  if (gone) return gone;
  const resolved = link.data;
  const name = nameOf(resolved.owner);
  document.title = `${name} shares a card · VID`;
  return (
    <div class="public-page">
      <section class="card invite" aria-labelledby="invite-title">
        <div class="avatar" aria-hidden="true">{initials(name)}</div>
        <h1 id="invite-title">
          <strong>{name}</strong> <span class="invite-username">(@{resolved.owner.username})</span> wants to share their card with you
        </h1>
        <ul class="invite-facts">
          <li data-approval={resolved.auto_approve ? 'automatic' : 'manual'}>
            {resolved.auto_approve ? 'You see the card as soon as you follow.' : `${name} approves each request: you see the card once they do.`}
          </li>
          <li>When they change their details, your copy changes too.</li>
          {resolved.expires_at ? <li>This link works until {day(resolved.expires_at)}.</li> : null}
        </ul>
        <Next token={token} link={resolved} name={name} />
      </section>
      {signedIn ? null : <p class="public-footer">Cards shared with VID: your details, kept current with the people you choose.</p>}
    </div>
  );
}
