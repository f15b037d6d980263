import type { Card } from '../profiles/card.js';

/** Whether a card (its stored JSON) shows this photo: a field of type photo naming it. */
export function cardShowsPhoto(cardJson: string | undefined, photoId: string): boolean {
  if (cardJson === undefined) return false;
  return (JSON.parse(cardJson) as Card).fields.some((field) => field.type === 'photo' && (field.value as { photo_id?: string }).photo_id === photoId);
}

/**
 * Who may fetch a photo (PRODUCT §2): its owner, and whoever sees a card showing it, by the one
 * audience rule the cards themselves are served by: anyone when the public card shows it
 * (`public`), a subscriber when the card the contacts rule shows them does (`private`).
 * Undefined: not theirs to see, answered as a photo that does not exist.
 */
export async function photoAudience(
  deps: { publicCardJsonOf(ownerId: string): Promise<string | undefined>; cardFrom(subscriberId: string, ownerId: string): Promise<string | undefined> },
  photo: { id: string; ownerId: string },
  viewerId: string | undefined,
): Promise<'public' | 'private' | undefined> {
  if (cardShowsPhoto(await deps.publicCardJsonOf(photo.ownerId), photo.id)) return 'public';
  if (viewerId === undefined) return undefined;
  if (viewerId === photo.ownerId) return 'private';
  return cardShowsPhoto(await deps.cardFrom(viewerId, photo.ownerId), photo.id) ? 'private' : undefined;
}
