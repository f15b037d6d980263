// A card, drawn one way wherever it appears (a profile's preview, a public card, a contact), and
// what changed on it in words ("new phone number"), from the card's own `changed` list.
import type { Card } from '../../../client/src/index.js';
import { display, hrefOf, thumbnailOf, TYPE_NOUNS } from '../field-display.js';
import { useFieldTypes } from './countries.js';
import { elsewhere, handleOf, regionName, Username } from './region.js';
import type { Named } from './region.js';
import { initials } from './words.js';

/** The name a person is called by: theirs, else their username (`alice@eu` when of another region). */
export const nameOf = (owner: Named): string => owner.display_name || handleOf(owner);

/** `heading`: the card is the page itself (the public card), so its name is the page's heading. */
export function CardView({ card, empty, heading }: { card: Card; empty: string; heading?: boolean }) {
  const types = useFieldTypes();
  const labels = new Map((types.data?.data ?? []).map((type) => [type.key, type.label]));
  const owner: Named = card.owner;
  const name = nameOf(owner);
  const region = elsewhere(owner);
  // The first photo the card shows is its face; photos are not rows of details.
  const face = card.fields.map(thumbnailOf).find(Boolean);
  const details = card.fields.filter((field) => field.type !== 'photo');
  return (
    <article class="vcard" aria-label={`Card of ${name}`}>
      <header class="vcard-head">
        {face ? <img class="avatar photo" src={face} alt={`Photo of ${name}`} width={56} height={56} /> : <div class="avatar" aria-hidden="true">{initials(owner.display_name || owner.username)}</div>}
        <div>
          {heading ? <h1 class="vcard-name">{name}</h1> : <p class="vcard-name">{name}</p>}
          <p class="vcard-username"><Username who={owner} /></p>
          {region ? <p class="vcard-region">Lives in {regionName(region)} region</p> : null}
        </div>
      </header>
      {details.length
        ? (
          <ul class="vcard-fields">
            {details.map((field) => {
              const href = hrefOf(field);
              const text = display(field);
              const kind = labels.get(field.type) ?? TYPE_NOUNS[field.type] ?? 'Detail';
              return (
                <li key={field.id} data-card-field={field.id} data-type={field.type}>
                  <span class="vcard-label">
                    {field.label || kind}
                    {field.label ? <span class="vcard-type"> · {kind}</span> : null}
                  </span>
                  <span class="vcard-value">
                    {href ? <a href={href} rel="noopener noreferrer" target={href.startsWith('http') ? '_blank' : undefined}>{text}</a> : text}
                  </span>
                </li>
              );
            })}
          </ul>
        )
        // A card that shows only a face has nothing more to say.
        : face ? null : <p class="vcard-empty">{empty}</p>}
    </article>
  );
}

/**
 * "new phone number and e-mail address": the kinds of detail a card's `changed` lists
 * (contact.card.changed, src/platform/signals/catalogue.ts), or undefined when it lists none.
 */
export function changedWords(changed: readonly string[] | undefined): string | undefined {
  const nouns = [...new Set((changed ?? []).map((kind) => (kind === 'display_name' ? 'name' : TYPE_NOUNS[kind] ?? 'details')))];
  if (!nouns.length) return undefined;
  const list = nouns.length === 1 ? nouns[0] : `${nouns.slice(0, -1).join(', ')} and ${nouns[nouns.length - 1]}`;
  return `new ${list}`;
}

/** "Alice updated her card: new phone number" — the sentence a live card change is told by. */
export function updatedSentence(card: Card): string {
  const what = changedWords((card as Card & { changed?: string[] }).changed);
  return `${nameOf(card.owner)} updated their card${what ? `: ${what}` : ''}.`;
}
