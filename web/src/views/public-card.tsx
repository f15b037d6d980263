// /@username: a person's public card, for anyone, signed in or not, with "Add to contacts"
// (the vCard 3.0 file iPhone and Android contacts apps import).
import type { Card } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import { client } from '../core/client.js';
import { path } from '../core/router.js';
import { useValue } from '../core/state.js';
import { CardView, nameOf } from '../ui/card.js';
import { Failed, Skeleton } from '../ui/layout.js';

export default function PublicCard() {
  const username = decodeURIComponent(useValue(path).slice(2));
  const card = useResource<Card>(`/public/${encodeURIComponent(username)}`);
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
      <CardView card={card.data} empty={`${name} shares no details publicly yet.`} />
      <div class="public-actions">
        <a class="button primary" id="add-to-contacts" href={client.public.vcardUrl(username, '3.0')} download={`${username}.vcf`}>Add to contacts</a>
        <p class="hint">Downloads a contact file your phone or computer opens in its address book.</p>
      </div>
      <p class="public-footer">A card shared with VID. <a href="/" data-link>Make your own</a></p>
    </div>
  );
}
