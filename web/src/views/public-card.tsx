// /@username: a person's public card, for anyone, signed in or not, with "Add to contacts"
// (the vCard 3.0 file iPhone and Android contacts apps import) and, for someone signed in,
// "Follow": a request to the owner, after which the card stays current in Contacts.
import { useState } from 'preact/hooks';
import type { Card } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { navigate } from '../core/router.js';
import { path } from '../core/router.js';
import { useValue } from '../core/state.js';
import { CardView, nameOf } from '../ui/card.js';
import { FormError, useAction } from '../ui/form.js';
import { Failed, Skeleton } from '../ui/layout.js';

/** Follow: ask the owner for their card; once they approve, it stays current in Contacts. */
function Follow({ username, name }: { username: string; name: string }) {
  const [contactId, setContactId] = useState<string | undefined>(undefined);
  const follow = useAction(async () => {
    const contact = await client.contacts.subscribe(username);
    setContactId(contact.id);
    return contact.status === 'active' ? `You follow ${name}: their card is in your contacts.` : `Request sent. ${name}’s card appears in your contacts once they approve.`;
  }, {
    done: (text) => text as string,
    explain: (error) => {
      if (isProblem(error, 'already_subscribed')) {
        setContactId((error.problem as { contact_id?: string }).contact_id ?? 'known');
        return { message: `You already follow ${name}, or asked to.`, boxes: {} };
      }
      if (isProblem(error, 'cannot_subscribe_to_self')) return { message: 'This is your own public card.', boxes: {} };
      return undefined;
    },
  });
  return (
    <div class="public-follow">
      {contactId
        ? <button type="button" class="primary" id="open-contact" onClick={() => navigate(contactId === 'known' ? '/contacts' : `/contacts?c=${encodeURIComponent(contactId)}`)}>Open in your contacts</button>
        : <button type="button" class="primary" id="follow" disabled={follow.busy} onClick={() => void follow.run()}>Follow</button>}
      <p class="hint">Following asks {name} for their card. Once they approve, it stays current in your contacts: when they change a detail, you see it.</p>
      <FormError action={follow} />
    </div>
  );
}

export default function PublicCard() {
  const username = decodeURIComponent(useValue(path).slice(2));
  const card = useResource<Card>(`/public/${encodeURIComponent(username)}`);
  const signedIn = Boolean(useValue(session));
  // Whose session it is: the owner looking at their own card is offered nothing to follow.
  const me = useResource<{ username: string }>(signedIn ? '/me' : undefined);
  if (card.data === undefined) {
    if (card.error !== undefined && !card.loading) {
      if (isProblem(card.error) && card.error.status === 404) {
        return (
          <div class="public-page">
            <section class="card empty-state">
              <h1>No public card here</h1>
              <p>Nobody called @{username} shares a public card. Check the name, or ask them for a share link.</p>
              <p><a href="/" data-link>Go to VID</a></p>
            </section>
          </div>
        );
      }
      return <div class="public-page"><Failed error={card.error} /></div>;
    }
    return <div class="public-page"><Skeleton lines={4} /></div>;
  }
  const name = nameOf(card.data.owner);
  document.title = `${name} · VID`;
  return (
    <div class="public-page">
      <CardView card={card.data} empty={`${name} shares no details publicly yet.`} heading />
      <div class="public-actions">
        {signedIn && me.data && me.data.username !== card.data.owner.username ? <Follow username={card.data.owner.username} name={name} /> : null}
        <a class={`button${signedIn && me.data?.username !== card.data.owner.username ? '' : ' primary'}`} id="add-to-contacts" href={client.public.vcardUrl(username, '3.0')} download={`${username}.vcf`}>Add to contacts</a>
        <p class="hint">Downloads a contact file your phone or computer opens in its address book: a copy as it is today.</p>
      </div>
      {signedIn ? null : <p class="public-footer">A card shared with VID. <a href="/" data-link>Make your own</a></p>}
    </div>
  );
}
