// Forms: a box with its label, its hint and the one sentence about it; drafts that survive live
// updates (the component keeps them; nothing is redrawn from scratch); one way to run an action.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { online } from '../core/client.js';
import type { BoxWords, Words } from '../core/messages.js';
import { unreachable, wordsFor } from '../core/sentences.js';
import { toast } from '../core/toast.js';
import { isCancel } from '../cancel.js';

/**
 * A label, the control (given the id and description it must carry), a hint, and the sentence
 * about what was wrong with it, right under it.
 */
export function Field({ label, hint, error, optional, id, children }: {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  optional?: boolean;
  id: string;
  children: (aria: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' }) => ComponentChildren;
}) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>
        {label}
        {optional ? <span class="optional"> (optional)</span> : null}
      </label>
      {children({ id, 'aria-describedby': described, ...(error ? { 'aria-invalid': 'true' as const } : {}) })}
      {hint ? <p class="hint" id={`${id}-hint`}>{hint}</p> : null}
      {error ? <p class="box-error" id={`${id}-error`}>{error}</p> : null}
    </div>
  );
}

/** The attributes a box takes (keyboard, autofill, the server's limits). */
export interface BoxAttributes {
  name?: string;
  type?: string;
  inputMode?: string;
  autocomplete?: string;
  autocapitalize?: string;
  spellcheck?: boolean;
  maxLength?: number;
  required?: boolean;
  pattern?: string;
  disabled?: boolean;
}

/** A text box in a Field: `value` and `onValue` (the draft), and the input's own attributes. */
export function TextField({ label, hint, error, optional, id, value, onValue, ...input }: BoxAttributes & {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  optional?: boolean;
  id: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <Field label={label} hint={hint} error={error} optional={optional} id={id}>
      {(aria) => <input {...(input as object)} {...aria} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} />}
    </Field>
  );
}

/**
 * A draft of a value the server holds: it follows the server (a change from another device
 * shows) until the person edits it, then keeps what they typed until `reset` (saved, cancelled).
 */
export function useDraft<T>(server: T): { value: T; set: (value: T) => void; dirty: boolean; reset: () => void } {
  const [draft, setDraft] = useState<{ value: T } | undefined>(undefined);
  return {
    value: draft ? draft.value : server,
    set: (value) => setDraft({ value }),
    dirty: draft !== undefined,
    reset: () => setDraft(undefined),
  };
}

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<boolean>;
  busy: boolean;
  /** The words for the last failure, until the next run. */
  failure: Words | undefined;
  /** The sentence about one box (by pointer), if the last failure concerned it. */
  box: (pointer: string) => string | undefined;
  clear: () => void;
}

/**
 * The one way a screen does something: busy while it runs, a note when done, and when it fails
 * the words for it (by box, from `boxes`); nothing typed is lost either way.
 */
export function useAction<A extends unknown[]>(
  work: (...args: A) => Promise<unknown>,
  options: {
    done?: string | ((result: unknown) => string | undefined);
    boxes?: Record<string, BoxWords>;
    /** Words of the screen's own for some failures (undefined: the message layer's). */
    explain?: (error: unknown) => Words | undefined;
  } = {},
): Action<A> {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Words | undefined>(undefined);
  const latest = useRef({ work, options });
  latest.current = { work, options };
  /** What could not be sent because the server was out of reach: sent again when it answers. */
  const waiting = useRef<A | undefined>(undefined);
  const run = async (...args: A): Promise<boolean> => {
    waiting.current = undefined;
    setBusy(true);
    setFailure(undefined);
    try {
      const result = await latest.current.work(...args);
      const { done } = latest.current.options;
      const note = typeof done === 'function' ? done(result) : done;
      if (note) toast(note);
      return true;
    } catch (error) {
      if (unreachable(error)) {
        // Said plainly, and kept: what was typed stays in its boxes and goes when the server answers.
        waiting.current = args;
        setFailure({ message: NOT_SENT, boxes: {} });
        return false;
      }
      const own = latest.current.options.explain?.(error);
      // The message layer loads the first time something fails (core/sentences.ts).
      setFailure(own ?? (isCancel(error) ? { message: 'Cancelled: nothing was changed.', boxes: {} } : await wordsFor(error, latest.current.options.boxes)));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const again = useRef(run);
  again.current = run;
  // Back online (the first answer after the outage): what waits is sent, once.
  useEffect(() => online.watch(() => {
    const args = waiting.current;
    if (online.value && args) void again.current(...args);
  }), []);
  return {
    busy,
    failure,
    box: (pointer) => failure?.boxes[pointer],
    clear: () => ((waiting.current = undefined), setFailure(undefined)),
    run,
  };
}

/** An action that could not reach the server: nothing was saved, and it goes when the server answers. */
export const NOT_SENT = 'Not sent: the server cannot be reached. Keep this screen open and it is sent as soon as the server answers again.';

/** The form-level sentence of an action's failure (its box sentences sit by their boxes). */
export function FormError({ action }: { action: { failure: Words | undefined } }) {
  const message = action.failure?.message;
  return message ? <p class="msg error" role="alert">{message}</p> : null;
}

/** What a `<Confirm>` asks and offers; only `verb`, `action` and `onKeep` are always given. */
export interface ConfirmProps {
  /** The group's accessible name (the question in short), when no `heading` titles it. */
  label?: string;
  /** A title shown above, naming the group instead of `label`. */
  heading?: string;
  /** The element's id, for a page that points at this question. */
  id?: string;
  /** The question is said at once (role="alert"), as when it opens in the middle of a list. */
  alert?: boolean;
  /** The question's words (one paragraph); none when `heading` and `details` say it all. */
  children?: ComponentChildren;
  /** What follows the question: what goes, the card strangers will see. */
  details?: ComponentChildren;
  /** The action's button: its words, id, accessible name and look (`primary` when nothing is lost). */
  verb: string;
  verbId?: string;
  verbLabel?: string;
  primary?: boolean;
  /** The action's button has focus when the question opens. */
  focusVerb?: boolean;
  action: Pick<Action<[]>, 'run' | 'busy'>;
  /** Further answers beside the action's (e.g. "Revoke and block"). */
  also?: ComponentChildren;
  /** The way back: its words (default "Keep it") and id. */
  keep?: string;
  keepId?: string;
  onKeep: () => void;
  /** An action whose failure is said inside the question, under its buttons. */
  failure?: { failure: Words | undefined };
}

/**
 * The question asked before something that cannot be taken back (removing a field or a passkey,
 * revoking an address-book password, deleting a profile or the account): the question, the
 * action's button, and the way back ("Keep it").
 */
export function Confirm({ label, heading, id, alert, children, details, verb, verbId, verbLabel, primary, focusVerb, action, also, keep = 'Keep it', keepId, onKeep, failure }: ConfirmProps) {
  const titleId = useId();
  const verbButton = useRef<HTMLButtonElement>(null);
  const opened = useRef(false);
  // On opening, and again whenever a redraw leaves the focus nowhere (on the page's body): never
  // taken from another control the person moved to.
  useEffect(() => {
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (focusVerb && (lost || !opened.current)) verbButton.current?.focus();
    opened.current = true;
  });
  return (
    <div class="confirm" id={id} role="group" aria-label={heading ? undefined : label} aria-labelledby={heading ? titleId : undefined}>
      {heading ? <h3 id={titleId}>{heading}</h3> : null}
      {children ? <p role={alert ? 'alert' : undefined}>{children}</p> : null}
      {details}
      <div class="actions">
        <button type="button" class={primary ? 'primary' : 'danger'} id={verbId} aria-label={verbLabel} ref={verbButton} disabled={action.busy} onClick={() => void action.run()}>{verb}</button>
        {also}
        <button type="button" id={keepId} onClick={onKeep}>{keep}</button>
      </div>
      {failure ? <FormError action={failure} /> : null}
    </div>
  );
}
