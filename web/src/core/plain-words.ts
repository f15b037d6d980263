// The words the message layer and the first download share: the sentences said at once (being
// offline, a locked account) and the shapes of what a form's refusal becomes. Kept apart from
// both, so the first download (core/sentences.ts) and the layer it loads later
// (core/messages.ts) each import them without importing each other.

/** What a form knows about one of its boxes, so a sentence can name it. */
export interface BoxWords {
  /** How the box is labelled, in lower case where it sits inside a sentence (“postcode”). */
  name?: string;
  maxLength?: number;
  /** The chosen country's name, for rules that follow it. */
  country?: string;
  /** An example of a good value. */
  example?: string;
}

export interface Words {
  /** The sentence for the form as a whole (nothing when every problem sits next to its box). */
  message?: string;
  /** Sentences by the pointer of the box they concern (`/display_name`, `/value/postal_code`). */
  boxes: Record<string, string>;
}

export const OFFLINE = 'You’re offline, trying again.';
export const LOCKED = 'This account is locked by the people who run this service, so it cannot be used for now. Contact them to have it unlocked.';
