// Contacts: the cards of the people you subscribe to, kept current live (contact.card.changed
// pulls the one card again with If-None-Match and redraws it in place), requests still waiting
// for approval, a private note and labels per contact (they never learn of them), a filter by
// label, subscribing by username, and every card in one vCard 3.0 file for an address book.
import type { Annotation, Contact, Signal } from '../../../client/src/index.js';
import { contactCards, contactOfCard, isProblem } from '../../../client/src/index.js';
import { announce, client, explain, type View } from '../app.js';
import { cardElement, initials } from '../card.js';
import { ago, append, button, field, h, message, section, serial, when } from '../dom.js';

type LabelCount = { label: string; count: number };

const nameOf = (person: { username: string; display_name: string | null }) => person.display_name || person.username;
const ANNOTATION = /^\/contacts\/([^/]+)\/annotation$/;

const ENDED: Record<string, (name: string) => string> = {
  denied: (name) => `${name} did not approve your request.`,
  revoked: (name) => `${name} stopped sharing their card with you.`,
  ended: () => 'This subscription has ended.',
  unavailable: (name) => `${name} deleted their account. If they restore it, their card comes back.`,
};

function person(who: { username: string; display_name: string | null }, meta: string): HTMLElement {
  const name = nameOf(who);
  return h('div', { class: 'person' },
    h('div', { class: 'avatar small', 'aria-hidden': 'true' }, initials(name)),
    h('div', { class: 'person-text' },
      h('strong', {}, name),
      h('span', { class: 'item-meta' }, `@${who.username}`, meta ? ` · ${meta}` : '')));
}

/** "work, Berlin ,work" → ["work", "Berlin"]; throws a sentence when a label breaks the rules. */
function parseLabels(text: string): string[] {
  const seen = new Set<string>();
  const labels: string[] = [];
  for (const raw of text.split(',')) {
    const label = raw.trim();
    if (!label || seen.has(label.toLowerCase())) continue;
    if ([...label].length > 32) throw new Error(`A label has at most 32 characters: shorten “${label.slice(0, 40)}”.`);
    seen.add(label.toLowerCase());
    labels.push(label);
  }
  if (labels.length > 20) throw new Error('At most 20 labels per contact: remove a few.');
  return labels;
}

export default async function contacts(): Promise<View> {
  let root: HTMLElement;
  const queue = serial();
  const cards = contactCards(client);
  const params = new URLSearchParams(location.search);
  let filter = params.get('label') ?? undefined;
  let highlight = params.get('c') ?? undefined;
  const error = message('error');
  /** Private notes, by contact id (null: none written yet). */
  const annotations = new Map<string, Annotation | null>();
  /** What is being typed in an editor, kept across redraws (a signal must not wipe it). */
  const drafts = new Map<string, { note: string; labels: string }>();
  const openEditors = new Set<string>();
  let shown: Contact[] = [];

  // Subscribing by username: built once, so a redraw keeps what is typed.
  const who = h('input', { id: 'subscribe-username', name: 'username', required: true, maxlength: 64, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', placeholder: 'username' });
  const note = h('input', { id: 'subscribe-message', name: 'message', maxlength: 280, autocomplete: 'off', placeholder: 'Hi, it’s Sam from the conference' });
  const subscribeMsg = message('error');
  const subscribeForm = h('form', {
    id: 'subscribe-form',
    onsubmit: (async (e: Event) => {
      e.preventDefault();
      subscribeMsg.textContent = '';
      const username = who.value.trim().replace(/^@/, '');
      try {
        const contact = await client.contacts.subscribe(username, note.value.trim() || undefined);
        who.value = '';
        note.value = '';
        highlight = contact.id;
        announce(contact.status === 'active' ? `You now see @${username}’s card.` : `Request sent to @${username}. Their card appears here once they approve.`);
        await redraw();
      } catch (failure) {
        if (isProblem(failure, 'already_subscribed')) {
          highlight = (failure.problem as { contact_id?: string }).contact_id;
          subscribeMsg.textContent = `You already subscribe to @${username}.`;
          await redraw();
        } else if (isProblem(failure, 'account_not_found')) subscribeMsg.textContent = `Nobody is called @${username}. Check the spelling, or ask them for their share link.`;
        else if (isProblem(failure, 'cannot_subscribe_to_self')) subscribeMsg.textContent = 'That is your own username: your cards are under Profiles.';
        else if (isProblem(failure, 'subscription_refused')) subscribeMsg.textContent = `@${username} does not accept requests from this account.`;
        else subscribeMsg.textContent = explain(failure);
      }
    }) as EventListener,
  },
    h('div', { class: 'form-grid' },
      field('Their username', who),
      field('Message (optional)', note, 'They see it with your request.')),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Ask to subscribe')),
    subscribeMsg);

  async function annotationOf(id: string): Promise<Annotation | null> {
    try {
      return await client.contacts.annotation.get(id);
    } catch (failure) {
      // Nothing written yet: the annotation exists from the first save.
      if (isProblem(failure) && failure.status === 404) return null;
      throw failure;
    }
  }

  /**
   * The list, the labels, and for each active contact its card and note. `pull`: check every
   * card held (a 304 each when nothing changed), as after contacts.changed; otherwise only the
   * cards not held yet (card changes arrive as contact.card.changed).
   */
  async function load(pull: boolean) {
    const list: Contact[] = [];
    for await (const c of client.contacts.list({ limit: 200, ...(filter ? { label: filter } : {}) })) list.push(c);
    const labels = (await client.contacts.labels()) as LabelCount[];
    const active = list.filter((c) => c.status === 'active');
    await Promise.all(active.map(async (c) => {
      // One card that cannot be read now is drawn as such; the others still are.
      if (pull || !cards.cards.has(c.id)) await cards.refresh(c.id).catch(() => undefined);
      if (!annotations.has(c.id)) annotations.set(c.id, await annotationOf(c.id).catch(() => null));
    }));
    return { list, labels };
  }

  const redraw = (pull = false) => queue(() => draw(pull));

  async function draw(pull: boolean): Promise<void> {
    const { list, labels } = await load(pull);
    shown = list;
    const pending = list.filter((c) => c.status === 'pending');
    const active = list.filter((c) => c.status === 'active');
    const ended = list.filter((c) => c.status !== 'pending' && c.status !== 'active');

    const items = await Promise.all(active.map(contactItem));
    const focus = rememberFocus();
    root.replaceChildren();
    append(root, [
      h('h1', {}, 'Contacts'),
      h('p', { class: 'lead' }, 'The cards people share with you. They stay current: when someone changes a detail, you see it here.'),
      error,
      h('div', { class: 'contacts-layout' },
        h('div', { class: 'contacts-main' },
          labels.length ? labelFilter(labels) : null,
          pending.length ? section('Waiting for approval', h('ul', { class: 'items people', id: 'pending' }, ...pending.map(pendingItem))) : null,
          active.length
            ? h('ul', { class: 'contacts-grid', id: 'contacts', 'aria-label': filter ? `Contacts labelled ${filter}` : 'Contacts' }, ...items)
            : pending.length && !filter ? null : emptyState(list.length > 0),
          ended.length ? section('No longer shared', h('ul', { class: 'items people', id: 'ended' }, ...ended.map(endedItem))) : null),
        h('aside', { class: 'contacts-side', 'aria-label': 'Add and export' },
          section('Add someone', h('p', { class: 'hint' }, 'Ask for their share link or QR code, or type their username. They decide which of their cards you see.'), subscribeForm),
          active.length || filter ? exportSection() : null)),
    ]);
    focus();
    if (highlight) {
      const item = root.querySelector<HTMLElement>(`[data-contact="${CSS.escape(highlight)}"]`);
      if (item) {
        item.classList.add('highlight');
        item.scrollIntoView({ block: 'nearest' });
        highlight = undefined;
        history.replaceState(null, '', filter ? `/contacts?label=${encodeURIComponent(filter)}` : '/contacts');
      }
    }
  }

  function setFilter(label: string | undefined): void {
    filter = label;
    history.replaceState(null, '', label ? `/contacts?label=${encodeURIComponent(label)}` : '/contacts');
  }

  function labelFilter(labels: LabelCount[]): HTMLElement {
    const chip = (label: string | undefined, text: string, count?: number) => {
      const pressed = (filter?.toLowerCase() ?? '') === (label?.toLowerCase() ?? '');
      return h('li', {},
        h('button', {
          type: 'button',
          class: `chip${pressed ? ' selected' : ''}`,
          'aria-pressed': pressed ? 'true' : 'false',
          'data-label': label ?? '',
          onclick: (() => {
            setFilter(label);
            void redraw();
          }) as EventListener,
        }, text, count === undefined ? null : h('span', { class: 'chip-count' }, `${count}`)));
    };
    return h('div', { class: 'label-filter' },
      h('p', { class: 'filter-title', id: 'label-filter-title' }, 'Show'),
      h('ul', { class: 'chips', id: 'label-filter', 'aria-labelledby': 'label-filter-title' },
        chip(undefined, 'Everyone'),
        ...labels.map((l) => chip(l.label, l.label, l.count))));
  }

  function exportSection(): HTMLElement {
    const exportMsg = message('error');
    return section('Your address book',
      h('p', { class: 'hint' }, 'Every card in one file (vCard) that your phone’s or computer’s contacts app imports. Import it again later to update them.'),
      h('div', { class: 'actions' }, button('Export all contacts (.vcf)', () => exportAll(exportMsg), { id: 'export-contacts' })),
      exportMsg);
  }

  async function exportAll(msg: HTMLElement): Promise<void> {
    msg.textContent = '';
    try {
      const text = await client.contacts.allVcards('3.0');
      if (!String(text ?? '').trim()) {
        msg.textContent = 'Nobody shares a card with you yet, so there is nothing to export.';
        return;
      }
      const url = URL.createObjectURL(new Blob([String(text)], { type: 'text/vcard;charset=utf-8' }));
      const a = h('a', { href: url, download: 'vid-contacts.vcf', hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      announce('Contacts exported: open the file to add them to your address book.');
    } catch (failure) {
      msg.textContent = explain(failure);
    }
  }

  function emptyState(hasOthers: boolean): HTMLElement {
    if (filter) {
      return h('section', { class: 'card empty-state', id: 'contacts' },
        h('h2', {}, `Nobody labelled “${filter}”`),
        h('p', {}, 'Labels are yours alone: add one to a contact under “Note and labels”.'),
        button('Show everyone', () => {
          setFilter(undefined);
          void redraw();
        }));
    }
    return h('section', { class: 'card empty-state', id: 'contacts' },
      h('h2', {}, hasOthers ? 'No cards right now' : 'No contacts yet'),
      h('p', {}, `${hasOthers ? 'Nobody shares a card with you at the moment. ' : ''}Ask someone for their VID share link or QR code, or add them by username. Their card appears here and stays up to date.`));
  }

  async function contactItem(c: Contact): Promise<HTMLLIElement> {
    const name = nameOf(c.owner);
    const card = cards.cards.get(c.id);
    const slot = h('div', { class: 'contact-card' },
      card ? await cardElement(card, { empty: `${name} shares no details with you yet.` }) : h('p', { class: 'hint' }, 'This card could not be loaded. It appears here once it can.'));
    return h('li', { class: 'contact', 'data-contact': c.id, 'data-status': c.status },
      slot,
      annotationBlock(c),
      footer(c));
  }

  function annotationBlock(c: Contact): HTMLElement {
    const name = nameOf(c.owner);
    const saved = annotations.get(c.id) ?? null;
    const labels = saved?.labels ?? c.labels;
    const draft = drafts.get(c.id);
    const noteInput = h('textarea', { id: `note-${c.id}`, name: 'note', rows: 3, maxlength: 4000 });
    noteInput.value = draft?.note ?? saved?.note ?? '';
    const labelsInput = h('input', { id: `labels-${c.id}`, name: 'labels', autocomplete: 'off', value: draft?.labels ?? labels.join(', '), placeholder: 'work, Berlin' });
    const keepDraft = () => drafts.set(c.id, { note: noteInput.value, labels: labelsInput.value });
    noteInput.addEventListener('input', keepDraft);
    labelsInput.addEventListener('input', keepDraft);
    const msg = message('error');
    const save = h('button', { type: 'submit', class: 'primary' }, 'Save');
    const editor = h('details', { class: 'annotation-editor', ...(openEditors.has(c.id) ? { open: true } : {}) },
      h('summary', {}, saved?.note || labels.length ? 'Edit note and labels' : 'Add a note or labels'),
      h('form', {
        onsubmit: (async (e: Event) => {
          e.preventDefault();
          msg.textContent = '';
          let body;
          try {
            body = { note: noteInput.value.trim(), labels: parseLabels(labelsInput.value) };
          } catch (invalid) {
            msg.textContent = (invalid as Error).message;
            labelsInput.focus();
            return;
          }
          save.disabled = true;
          try {
            const current = annotations.get(c.id);
            const result = await client.contacts.annotation.put(c.id, body, { ifMatch: current ? current.version : false });
            annotations.set(c.id, result);
            drafts.delete(c.id);
            openEditors.delete(c.id);
            announce(`Saved your note on ${name}.`);
            await redraw();
          } catch (failure) {
            if (isProblem(failure) && (failure.status === 412 || failure.code === 'annotation_exists')) {
              annotations.set(c.id, await annotationOf(c.id).catch(() => null));
              msg.textContent = 'You changed this note on another device meanwhile. Your text is still here: check it and save again.';
            } else msg.textContent = explain(failure);
          } finally {
            save.disabled = false;
          }
        }) as EventListener,
      },
        field('Private note', noteInput),
        field('Labels', labelsInput, 'Separate them with commas. Only you see your note and labels.'),
        h('div', { class: 'actions' }, save),
        msg));
    editor.addEventListener('toggle', () => (editor.open ? openEditors.add(c.id) : openEditors.delete(c.id)));

    return h('div', { class: 'annotation' },
      labels.length
        ? h('ul', { class: 'labels', 'aria-label': 'Your labels' }, ...labels.map((l) =>
            h('li', {}, button(l, () => {
              setFilter(l);
              void redraw();
            }, { class: 'label-tag', 'aria-label': `Show contacts labelled ${l}` }))))
        : null,
      saved?.note ? h('p', { class: 'contact-note', 'data-note': '' }, saved.note) : null,
      editor);
  }

  function footer(c: Contact): HTMLElement {
    const name = nameOf(c.owner);
    const confirmArea = h('div', { class: 'confirm', id: `unsubscribe-confirm-${c.id}` });
    const ask = () => {
      confirmArea.replaceChildren(
        h('p', { role: 'alert' }, `Unsubscribe from ${name}? Their card, your note and your labels go. To see the card again you have to ask again.`),
        h('div', { class: 'actions' },
          button('Unsubscribe', () => act(() => client.contacts.remove(c.id), `You no longer see ${name}’s card.`), { class: 'danger', id: `confirm-unsubscribe-${c.id}`, 'aria-label': `Unsubscribe from ${name}` }),
          button('Keep', () => confirmArea.replaceChildren())));
      document.getElementById(`confirm-unsubscribe-${c.id}`)?.focus();
    };
    return h('div', { class: 'contact-foot' },
      h('div', { class: 'contact-foot-row' },
        h('span', { class: 'item-meta', 'data-card-updated': '', title: c.card_updated_at ? when(c.card_updated_at) : undefined }, c.card_updated_at ? `Updated ${ago(c.card_updated_at)}` : ''),
        button('Unsubscribe…', ask, { class: 'danger subtle', 'aria-label': `Unsubscribe from ${name}…` })),
      confirmArea);
  }

  function pendingItem(c: Contact): HTMLLIElement {
    const name = nameOf(c.owner);
    return h('li', { 'data-contact': c.id, 'data-status': 'pending' },
      h('div', { class: 'item-main' },
        person(c.owner, `asked ${ago(c.created_at)}`),
        h('p', { class: 'hint' }, `${name} has not approved your request yet. Their card appears here as soon as they do.`)),
      button('Cancel request', () => act(() => client.contacts.remove(c.id), `Request to ${name} cancelled.`), { 'aria-label': `Cancel request to ${name}` }));
  }

  function endedItem(c: Contact): HTMLLIElement {
    const name = nameOf(c.owner);
    const reason = (ENDED[c.status] ?? ENDED.ended!)(name);
    const unavailable = c.status === 'unavailable';
    return h('li', { 'data-contact': c.id, 'data-status': c.status },
      h('div', { class: 'item-main' }, person(c.owner, ''), h('p', { class: 'hint' }, reason)),
      button(unavailable ? 'Unsubscribe' : 'Remove', () => act(() => client.contacts.remove(c.id), unavailable ? `Unsubscribed from ${name}.` : `${name} removed from your list.`),
        { 'aria-label': unavailable ? `Unsubscribe from ${name}` : `Remove ${name} from the list` }));
  }

  /** A card changed on the owner's side: pull that one card (304 if it did not) and redraw it in place. */
  async function cardChanged(id: string): Promise<void> {
    const contact = shown.find((c) => c.id === id && c.status === 'active');
    const item = root.querySelector<HTMLElement>(`li.contact[data-contact="${CSS.escape(id)}"]`);
    if (!contact) {
      // Not on screen (another label is shown): keep the copy current for later.
      await cards.refresh(id).catch(() => undefined);
      return;
    }
    if (!item) return draw(true);
    if (!(await cards.refresh(id))) return;
    const card = cards.cards.get(id);
    const slot = item.querySelector('.contact-card');
    if (!card || !slot) return draw(true);
    const name = nameOf(card.owner);
    slot.replaceChildren(await cardElement(card, { empty: `${name} shares no details with you yet.` }));
    const updated = item.querySelector('[data-card-updated]');
    if (updated) {
      updated.textContent = `Updated ${ago(card.updated_at)}`;
      updated.setAttribute('title', when(card.updated_at));
    }
    item.classList.remove('updated');
    void item.offsetWidth; // restart the highlight
    item.classList.add('updated');
    announce(`${name}’s card changed.`);
  }

  /** Runs a change, says so, and redraws; a refusal says how to fix it. */
  async function act(change: () => Promise<unknown>, done: string): Promise<void> {
    error.textContent = '';
    try {
      await change();
      announce(done);
    } catch (failure) {
      error.textContent = explain(failure);
      announce(error.textContent);
    }
    await redraw();
  }

  return {
    title: 'Contacts',
    async render(main) {
      root = main;
      await redraw(true);
    },
    async onSignal(signal: Signal) {
      const card = contactOfCard(signal.resource);
      if (signal.kind === 'contact.card.changed' && card) await queue(() => cardChanged(card));
      else if (signal.kind === 'contacts.changed') await redraw(true);
      else if (signal.kind === 'annotations.changed') {
        const id = ANNOTATION.exec(signal.resource)?.[1];
        if (id) annotations.delete(id);
        await redraw();
      }
    },
  };
}

/** Puts focus (and the caret) back where it was after the screen is drawn again. */
function rememberFocus(): () => void {
  const el = document.activeElement as HTMLInputElement | HTMLTextAreaElement | null;
  const id = el?.id;
  let range: [number | null, number | null] | undefined;
  try {
    if (el && 'selectionStart' in el) range = [el.selectionStart, el.selectionEnd];
  } catch {
    range = undefined;
  }
  return () => {
    if (!id) return;
    const next = document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement | null;
    if (!next || next === el) return;
    next.focus({ preventScroll: true });
    try {
      if (range && range[0] !== null) next.setSelectionRange(range[0], range[1]);
    } catch {
      // Not a text control.
    }
  };
}
