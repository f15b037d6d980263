// One person in a list (a contact, a subscriber, someone blocked): initials, name and username,
// with their region when it is not yours (`@alice@eu`).
import { nameOf } from './card.js';
import { Username } from './region.js';
import type { Named } from './region.js';
import { initials } from './words.js';

export function PersonLine({ who, meta }: { who: Named; meta: string }) {
  const name = nameOf(who);
  return (
    <div class="person">
      <div class="avatar small" aria-hidden="true">{initials(who.display_name || who.username)}</div>
      <div class="person-text">
        <strong>{name}</strong>
        <span class="item-meta"><Username who={who} />{meta ? ` · ${meta}` : ''}</span>
      </div>
    </div>
  );
}
