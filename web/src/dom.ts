// Small DOM helpers: elements from code (never HTML strings), so nothing needs inline script.
type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | EventListener | undefined | null>;

let ids = 0;
export const uid = (prefix = 'id'): string => `${prefix}-${++ids}`;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = String(value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/**
 * Redraws `root` without losing what the person is typing: a screen redrawn because something
 * changed elsewhere (a signal from another device) keeps each edited field's draft (by name)
 * and the focus, where the new drawing has a field of that name.
 */
export async function redrawKeepingDrafts(root: HTMLElement, draw: () => Promise<void>): Promise<void> {
  const drafts = new Map<string, string>();
  for (const input of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[name], textarea[name]')) {
    if (input.value !== input.defaultValue) drafts.set(input.name, input.value);
  }
  const focused = root.contains(document.activeElement) ? (document.activeElement as HTMLInputElement).name : undefined;
  await draw();
  for (const [name, value] of drafts) {
    const input = root.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[name="${CSS.escape(name)}"]`);
    if (input) input.value = value;
  }
  if (focused) root.querySelector<HTMLElement>(`[name="${CSS.escape(focused)}"]`)?.focus();
}

export function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
}

/** A labelled input: the label always names the control (accessibility). */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLDivElement {
  input.id ||= uid('f');
  const hintEl = hint ? h('p', { class: 'hint', id: `${input.id}-hint` }, hint) : undefined;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hintEl);
}

export function button(label: string, onclick: (event: Event) => unknown, attrs: Attrs = {}): HTMLButtonElement {
  return h('button', { type: 'button', ...attrs, onclick: ((event: Event) => void onclick(event)) as EventListener }, label);
}

/** A region that announces what it says (errors and progress) to screen readers. */
export function message(kind: 'error' | 'info' = 'info'): HTMLParagraphElement {
  return h('p', { class: `msg ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'aria-live': 'polite' });
}

export function section(title: string, ...children: Child[]): HTMLElement {
  const id = uid('h');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

/** A date without the time: "12 Mar 2026". */
export const day = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }) : '—';

const RELATIVE: [Intl.RelativeTimeFormatUnit, number][] = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3_600], ['minute', 60]];

/** "5 minutes ago", "in 3 days", "just now": how people say when something happened. */
export function ago(iso: string | null | undefined): string {
  if (!iso) return '—';
  const seconds = (new Date(iso).getTime() - Date.now()) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of RELATIVE) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return 'just now';
}

/** Runs async work one at a time, in order: a signal that arrives mid-redraw waits its turn. */
export function serial(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}
