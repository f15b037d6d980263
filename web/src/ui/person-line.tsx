// One person in a list (a contact, a subscriber, someone blocked): initials, name and username.
import { nameOf } from './card.js';
import { initials } from './words.js';

type Person = { username: string; display_name: string | null };

export function PersonLine({ who, meta }: { who: Person; meta: string }) {
  const name = nameOf(who);
  return (
    <div class="person">
      <div class="avatar small" aria-hidden="true">{initials(name)}</div>
      <div class="person-text">
        <strong>{name}</strong>
        <span class="item-meta">@{who.username}{meta ? ` · ${meta}` : ''}</span>
      </div>
    </div>
  );
}
