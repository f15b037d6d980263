// Passing notes ("Saved."): one at a time, shown in the header (so it never covers a button),
// gone after a few seconds or as soon as the next action starts.
import { state } from './state.js';

export const toastText = state('');
let timer: ReturnType<typeof setTimeout> | undefined;

export function toast(text: string): void {
  clearTimeout(timer);
  toastText.value = text;
  timer = setTimeout(dismissToast, 5_000);
}

export function dismissToast(): void {
  clearTimeout(timer);
  toastText.value = '';
}

/** The next action (a press of a button or link, a form sent) takes the last note away. */
export function dismissOnNextAction(): void {
  const dismiss = (event: Event) => {
    if (!toastText.value) return;
    const target = event.target as Element | null;
    if (event.type === 'submit' || target?.closest?.('button, a[href], [role=button]')) dismissToast();
  };
  document.addEventListener('click', dismiss, true);
  document.addEventListener('submit', dismiss, true);
}
