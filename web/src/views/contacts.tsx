// Contacts: the cards of the people you subscribe to, kept current live (contact.card.changed
// revalidates that one card in the resource cache, and the screen says what changed: "Alice
// Liddell updated their card: new phone number", from the card's `changed` list), requests still
// waiting for approval, a private note and labels per contact (they never learn of them), a
// filter by label, subscribing by username, and every card in one vCard 3.0 file.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Annotation, Card, Contact } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { cache, useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { useAllPages } from '../core/pages.js';
import { client } from '../core/client.js';
import { path } from '../core/router.js';
import { useValue } from '../core/state.js';
import { toast } from '../core/toast.js';
import { CardView, nameOf, updatedSentence } from '../ui/card.js';
import { Confirm, Field, FormError, TextField, useAction, useDraft } from '../ui/form.js';
import { Failed, Loaded, PageHead, Section, Skeleton } from '../ui/layout.js';
import { PersonLine } from '../ui/person-line.js';
import { CONTACT_BOXES } from '../ui/sharing-limits.js';
import { ago, when } from '../ui/words.js';

type LabelCount = { label: string; count: number };

const LABELS = '/labels?limit=200';
type Sort = 'given_name' | 'family_name' | 'recently_changed';
const SORTS: Array<[Sort, string]> = [['given_name', 'First name'], ['family_name', 'Last name'], ['recently_changed', 'Recently changed']];
/**
 * The list as the server finds and orders it (GET /contacts?q=&sort=: accents and case ignored),
 * each contact with the card it shows (include=card): a list of 5,000 is 25 reads, not 5,025.
 */
const listKey = (label: string | undefined, q = '', sort: Sort = 'given_name') =>
  `/contacts?limit=200&include=card&sort=${sort}${label ? `&label=${encodeURIComponent(label)}` : ''}${q.trim() ? `&q=${encodeURIComponent(q.trim())}` : ''}`;

/**
 * The cards a page of the list brings go into the cache under the key each card's own screen
 * reads (GET /contacts/{id}/card), with their tags: a card is not read again on its own, and a
 * signal about it revalidates it with If-None-Match. A new answer puts what it brings; a page
 * held puts back only what the cache let go of (a newer card, read since, stays).
 */
function holdCards(page: ListPage<Contact>, fresh: boolean): void {
  for (const contact of page.data) {
    if (!contact.card || !contact.card_etag) continue;
    const key = `/contacts/${contact.id}/card`;
    const held = cache.peek(key);
    if (fresh ? held.etag !== contact.card_etag : held.data === undefined && !held.loading) cache.put(key, contact.card, contact.card_etag);
  }
}

/** Rows drawn at a time: more as the list scrolls (or the letter index jumps), never all 5,000 at once. */
const STEP = 40;

/**
 * The letter a contact files under in this order: the first letter of the name the server sorts
 * it by (the card's given or family name, else the display name whole, else the username), its
 * accent dropped ("Émile" under E); anything but A-Z under "#".
 */
function letterOf(contact: Contact, sort: Sort): string {
  const name = contact.card?.fields.find((field) => field.type === 'name')?.value as { given?: string; family?: string } | undefined;
  const whole = contact.owner.display_name || contact.owner.username;
  const first = sort === 'given_name' ? (name?.given || name?.family) : (name?.family || name?.given);
  const letter = (first || whole).trim().normalize('NFD').replace(/\p{M}/gu, '').charAt(0).toUpperCase();
  return /^[A-Z]$/.test(letter) ? letter : '#';
}

/**
 * The cards, drawn a window at a time (the window grows as the end comes into view), with a
 * letter index on a long list sorted by a name: each letter jumps to the first contact under it
 * and puts the keyboard there.
 */
function ContactList({ contacts, sort, listed, more, highlight, label, onLabel }: { contacts: Contact[]; sort: Sort; listed: string; more: boolean; highlight: string | undefined; label: string; onLabel: (label: string) => void }) {
  const [range, setRange] = useState({ start: 0, end: STEP });
  const list = useRef<HTMLUListElement>(null);
  const end = useRef<HTMLLIElement>(null);
  const focus = useRef<string | undefined>(undefined);
  // Another search, order or label: from the top.
  useEffect(() => setRange({ start: 0, end: STEP }), [listed]);
  // A contact to show (a link named it) is drawn even when far down the list.
  useEffect(() => {
    const at = highlight ? contacts.findIndex((c) => c.id === highlight) : -1;
    if (at >= 0 && (at < range.start || at >= range.end)) setRange({ start: Math.max(0, at - 2), end: at + STEP });
  }, [highlight, contacts.length]);
  // The end of the window in view (or near it): the next rows.
  useEffect(() => {
    const last = end.current;
    if (!last || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((seen) => {
      if (seen.some((entry) => entry.isIntersecting)) setRange((r) => ({ ...r, end: r.end + STEP }));
    }, { rootMargin: '1200px 0px' });
    observer.observe(last);
    return () => observer.disconnect();
  }, [range.end, contacts.length]);
  // After a jump: the contact at the top of the screen, and the keyboard on it.
  useEffect(() => {
    const id = focus.current;
    if (!id) return;
    focus.current = undefined;
    const item = list.current?.querySelector<HTMLElement>(`[data-contact="${id}"]`);
    item?.scrollIntoView({ block: 'start' });
    item?.focus({ preventScroll: true });
  }, [range]);

  const letters: Array<[string, number]> = [];
  if (sort !== 'recently_changed' && contacts.length >= 50) {
    let previous = '';
    contacts.forEach((contact, i) => {
      const letter = letterOf(contact, sort);
      if (letter !== previous && !letters.some(([l]) => l === letter)) letters.push([letter, i]);
      previous = letter;
    });
  }
  const jump = (at: number) => {
    focus.current = contacts[at]!.id;
    setRange({ start: at, end: at + STEP });
  };
  const shown = contacts.slice(range.start, range.end);
  return (
    <div class={letters.length ? 'indexed' : undefined}>
      <div class="indexed-main">
        {range.start > 0
          ? (
            <p class="list-earlier">
              <button type="button" onClick={() => setRange((r) => ({ start: Math.max(0, r.start - STEP), end: r.end }))}>
                Show the {Math.min(STEP, range.start)} contacts before these
              </button>
            </p>
          )
          : null}
        <ul class="contacts-grid" id="contacts" ref={list} aria-label={label}>
          {shown.map((c) => <ContactItem key={c.id} contact={c} highlighted={c.id === highlight} onLabel={onLabel} />)}
          {range.end < contacts.length ? <li ref={end} class="list-end" aria-hidden="true" /> : null}
        </ul>
        {range.end < contacts.length
          ? <p class="list-more"><button type="button" onClick={() => setRange((r) => ({ ...r, end: r.end + STEP }))}>Show more contacts ({contacts.length - range.end} after these)</button></p>
          : null}
      </div>
      {letters.length
        ? (
          // Busy while later pages still arrive: letters may yet be added (WAI-ARIA 1.2 aria-busy).
          <nav class="letter-index" aria-busy={more ? 'true' : 'false'} aria-label={sort === 'family_name' ? 'Jump to a last name’s letter' : 'Jump to a first name’s letter'}>
            <ul>
              {letters.map(([letter, at]) => (
                <li key={letter}>
                  <button type="button" data-letter={letter} aria-label={letter === '#' ? 'Jump to names that do not start with A to Z' : `Jump to ${letter}`} onClick={() => jump(at)}>{letter}</button>
                </li>
              ))}
            </ul>
          </nav>
        )
        : null}
    </div>
  );
}

// No `denied`: a refused request looks like one not yet answered (PRODUCT §4, silent refusals).
const ENDED: Record<string, (name: string) => string> = {
  revoked: (name) => `${name} stopped sharing their card with you.`,
  ended: () => 'This subscription has ended.',
  unavailable: (name) => `${name} deleted their account. If they restore it, their card comes back.`,
};

/** Everything a change to the list touches: the list (any label), the label counts. */

/** "work, Berlin ,work" → ["work", "Berlin"]; a sentence when a label breaks the rules. */
function parseLabels(text: string): string[] | string {
  const seen = new Set<string>();
  const labels: string[] = [];
  for (const raw of text.split(',')) {
    const label = raw.trim();
    if (!label || seen.has(label.toLowerCase())) continue;
    if ([...label].length > CONTACT_BOXES.label) return `A label has at most ${CONTACT_BOXES.label} characters: shorten “${[...label].slice(0, 40).join('')}”.`;
    seen.add(label.toLowerCase());
    labels.push(label);
  }
  if (labels.length > CONTACT_BOXES.labels) return `At most ${CONTACT_BOXES.labels} labels per contact: remove a few.`;
  return labels;
}

function Subscribe({ onAdded }: { onAdded: (id: string) => void }) {
  const [username, setUsername] = useState('');
  const [message, setMessage] = useState('');
  const base = useId();
  const who = () => username.trim().replace(/^@/, '');
  const subscribe = useAction(async () => {
    const contact = await client.contacts.subscribe(who(), message.trim() || undefined);
    const name = who();
    setUsername('');
    setMessage('');
    onAdded(contact.id);
    return contact.status === 'active' ? `You now see @${name}’s card.` : `Request sent to @${name}. Their card appears here once they approve.`;
  }, {
    done: (text) => text as string,
    boxes: { '/message': { name: 'message', maxLength: CONTACT_BOXES.message } },
    explain: (error) => {
      const name = who();
      if (isProblem(error, 'already_subscribed')) {
        const id = (error.problem as { contact_id?: string }).contact_id;
        if (id) onAdded(id);
        return { boxes: { '/username': `You already follow @${name}.` } };
      }
      if (isProblem(error, 'account_not_found')) return { boxes: { '/username': `Nobody is called @${name}. Check the spelling, or ask them for their share link.` } };
      if (isProblem(error, 'cannot_subscribe_to_self')) return { boxes: { '/username': 'That is your own username: your cards are under Profiles.' } };
      // Across regions (PRODUCT §10): said under the name, which is what they would change.
      if (isProblem(error, 'unknown_region')) {
        const region = name.slice(name.lastIndexOf('@') + 1);
        return { boxes: { '/username': `${region ? `There is no region called “${region}”.` : 'The region is missing after the @.'} Use @eu or @us.` } };
      }
      if (isProblem(error, 'region_unavailable')) return { boxes: { '/username': 'Their region cannot be reached right now. Nothing was sent: try again in a few minutes.' } };
      return undefined;
    },
  });
  return (
    <form id="subscribe-form" onSubmit={(event) => (event.preventDefault(), void subscribe.run())}>
      <div class="form-grid">
        <TextField id={`${base}-username`} label="Their username" name="username" value={username} onValue={setUsername} required maxLength={128}
          autocomplete="off" autocapitalize="none" spellcheck={false} hint="To follow someone in another region, add @eu or @us." error={subscribe.box('/username')} />
        <TextField id={`${base}-message`} label="Message" optional name="message" value={message} onValue={setMessage} maxLength={CONTACT_BOXES.message}
          autocomplete="off" hint="They see it with your request." error={subscribe.box('/message')} />
      </div>
      <div class="actions"><button type="submit" class="primary" disabled={subscribe.busy}>Ask to follow</button></div>
      <FormError action={subscribe} />
    </form>
  );
}

function NoteEditor({ contact, saved, labels, onSaved }: { contact: Contact; saved: Annotation | null; labels: string[]; onSaved: () => void }) {
  const name = nameOf(contact.owner);
  const note = useDraft(saved?.note ?? '');
  const labelText = useDraft(labels.join(', '));
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  const base = useId();
  const save = useAction(async () => {
    const parsed = parseLabels(labelText.value);
    if (typeof parsed === 'string') throw new Error(parsed);
    const result = await client.contacts.annotation.put(contact.id, { note: note.value.trim(), labels: parsed }, { ifMatch: saved ? saved.version : false });
    cache.put(`/contacts/${contact.id}/annotation`, result);
    note.reset();
    labelText.reset();
    onSaved();
  }, {
    done: `Saved your note on ${name}.`,
    boxes: { '/note': { name: 'note', maxLength: CONTACT_BOXES.note } },
    explain: (error) => {
      if (isProblem(error) && (error.status === 412 || error.code === 'precondition_required')) {
        void cache.revalidate(`/contacts/${contact.id}/annotation`).catch(() => undefined);
        return { message: 'You changed this note on another device meanwhile. Your text is still here: check it and save again.', boxes: {} };
      }
      return undefined;
    },
  });
  const submit = (event: Event) => {
    event.preventDefault();
    const parsed = parseLabels(labelText.value);
    setInvalid(typeof parsed === 'string' ? parsed : undefined);
    if (typeof parsed !== 'string') void save.run();
  };
  return (
    <form onSubmit={submit}>
      <Field label="Private note" id={`${base}-note`} error={save.box('/note')}>
        {(aria) => <textarea {...aria} name="note" rows={3} maxLength={CONTACT_BOXES.note} value={note.value} onInput={(e) => note.set((e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <TextField id={`${base}-labels`} label="Labels" name="labels" value={labelText.value} onValue={labelText.set} autocomplete="off"
        hint="Separate them with commas. Only you see your note and labels." error={invalid ?? save.box('/labels')} />
      <div class="actions"><button type="submit" class="primary" disabled={save.busy}>Save</button></div>
      <FormError action={save} />
    </form>
  );
}

function ContactItem({ contact, highlighted, onLabel }: { contact: Contact; highlighted: boolean; onLabel: (label: string) => void }) {
  const card = useResource<Card>(`/contacts/${contact.id}/card`);
  const annotation = useResource<Annotation>(`/contacts/${contact.id}/annotation`);
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [flash, setFlash] = useState(false);
  const item = useRef<HTMLLIElement>(null);
  const seen = useRef<string | undefined>(undefined);
  const name = nameOf(card.data?.owner ?? contact.owner);
  // A card that changed while on screen says what changed (from its `changed` list) and lights up.
  const updatedAt = card.data?.updated_at;
  useEffect(() => {
    if (!updatedAt || !card.data) return;
    if (seen.current && seen.current !== updatedAt) {
      toast(updatedSentence(card.data));
      setFlash(false);
      requestAnimationFrame(() => setFlash(true));
    }
    seen.current = updatedAt;
  }, [updatedAt]);
  useEffect(() => {
    if (highlighted) item.current?.scrollIntoView({ block: 'nearest' });
  }, [highlighted]);
  // No note yet is a 404: nothing written, not a failure.
  const noNote = isProblem(annotation.error) && annotation.error.status === 404;
  const saved = annotation.data ?? null;
  const labels = saved?.labels ?? contact.labels;
  const remove = useAction(async () => {
    await client.contacts.remove(contact.id);
  }, { done: `You no longer see ${name}’s card.` });
  return (
    <li ref={item} tabIndex={-1} class={`contact${highlighted ? ' highlight' : ''}${flash ? ' updated' : ''}`} data-contact={contact.id} data-status={contact.status}>
      <div class="contact-card">
        {card.data
          ? <CardView card={card.data} empty={`${name} shares no details with you yet.`} />
          : card.error !== undefined && !card.loading ? <p class="hint">This card could not be loaded. It appears here once it can.</p> : <Skeleton lines={3} />}
        {/* Decision 352: a region unheard for a while; the card is the last copy that came. */}
        {contact.not_current_since
          ? <p class="hint" data-not-current>Their region cannot be reached right now, so this may not be their latest card (last heard from {ago(contact.not_current_since)}). It updates by itself when the region is back.</p>
          : null}
      </div>
      <div class="annotation">
        {flash && card.data ? <p class="item-meta" data-card-change>{updatedSentence(card.data)}</p> : null}
        {labels.length
          ? (
            <ul class="labels" aria-label="Your labels">
              {labels.map((l) => <li key={l}><button type="button" class="label-tag" aria-label={`Show contacts labelled ${l}`} onClick={() => onLabel(l)}>{l}</button></li>)}
            </ul>
          )
          : null}
        {saved?.note ? <p class="contact-note" data-note>{saved.note}</p> : null}
        {annotation.data !== undefined || noNote
          ? (
            <details class="annotation-editor" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
              <summary>{saved?.note || labels.length ? 'Edit note and labels' : 'Add a note or labels'}</summary>
              {open ? <NoteEditor contact={contact} saved={saved} labels={labels} onSaved={() => setOpen(false)} /> : null}
            </details>
          )
          : annotation.error !== undefined && !annotation.loading ? <Failed error={annotation.error} /> : null}
      </div>
      <div class="contact-foot">
        <div class="contact-foot-row">
          <span class="item-meta" data-card-updated title={updatedAt ? when(updatedAt) : undefined}>{updatedAt ? `Updated ${ago(updatedAt)}` : ''}</span>
          <button type="button" class="danger subtle" aria-label={`Stop following ${name}…`} onClick={() => setConfirming(true)}>Stop following…</button>
        </div>
        {confirming
          ? (
            <Confirm label={`Stop following ${name}?`} alert verb="Stop following" verbLabel={`Stop following ${name}`} action={remove} keep="Keep" onKeep={() => setConfirming(false)}>
              Stop following {name}? Their card, your note and your labels go. To see the card again you have to ask again.
            </Confirm>
          )
          : null}
        <FormError action={remove} />
      </div>
    </li>
  );
}

function OtherItem({ contact }: { contact: Contact }) {
  const name = nameOf(contact.owner);
  const pending = contact.status === 'pending';
  const unavailable = contact.status === 'unavailable';
  const remove = useAction(async () => {
    await client.contacts.remove(contact.id);
  }, { done: pending ? `Request to ${name} cancelled.` : unavailable ? `Unsubscribed from ${name}.` : `${name} removed from your list.` });
  const text = pending ? 'Cancel request' : unavailable ? 'Stop following' : 'Remove';
  const label = pending ? `Cancel request to ${name}` : unavailable ? `Unsubscribe from ${name}` : `Remove ${name} from the list`;
  return (
    <li data-contact={contact.id} data-status={contact.status}>
      <div class="item-main">
        <PersonLine who={contact.owner} meta={pending ? `asked ${ago(contact.created_at)}` : ''} />
        <p class="hint">{pending ? `${name} has not approved your request yet. Their card appears here as soon as they do; a request not answered within 30 days ends.` : (ENDED[contact.status] ?? ENDED.ended!)(name)}</p>
        <FormError action={remove} />
      </div>
      <button type="button" disabled={remove.busy} aria-label={label} onClick={() => void remove.run()}>{text}</button>
    </li>
  );
}

function LabelFilter({ labels, filter, onFilter }: { labels: LabelCount[]; filter: string | undefined; onFilter: (label: string | undefined) => void }) {
  const chip = (label: string | undefined, text: string, count?: number) => {
    const pressed = (filter?.toLowerCase() ?? '') === (label?.toLowerCase() ?? '');
    return (
      <li key={label ?? ''}>
        <button type="button" class={`chip${pressed ? ' selected' : ''}`} aria-pressed={pressed ? 'true' : 'false'} data-label={label ?? ''} onClick={() => onFilter(label)}>
          {text}
          {count === undefined ? null : <span class="chip-count">{count}</span>}
        </button>
      </li>
    );
  };
  return (
    <div class="label-filter">
      <p class="filter-title" id="label-filter-title">Show</p>
      <ul class="chips" id="label-filter" aria-labelledby="label-filter-title">
        {chip(undefined, 'Everyone')}
        {labels.map((l) => chip(l.label, l.label, l.count))}
      </ul>
    </div>
  );
}

/** Nothing to export: said as such, not as a failure of the service. */
class NothingToExport extends Error {}

function Export() {
  const exportAll = useAction(async () => {
    const text = String((await client.contacts.allVcards('3.0')) ?? '');
    if (!text.trim()) throw new NothingToExport();
    const url = URL.createObjectURL(new Blob([text], { type: 'text/vcard;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'vid-contacts.vcf';
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }, {
    done: 'Contacts exported: open the file to add them to your address book.',
    explain: (error) => (error instanceof NothingToExport ? { message: 'Nobody shares a card with you yet, so there is nothing to export.', boxes: {} } : undefined),
  });
  return (
    <Section title="Your address book">
      <p class="hint">Every card in one file (vCard) that your phone’s or computer’s contacts app imports. Import it again later to update them.</p>
      <div class="actions"><button type="button" id="export-contacts" disabled={exportAll.busy} onClick={() => void exportAll.run()}>Export all contacts (.vcf)</button></div>
      <FormError action={exportAll} />
    </Section>
  );
}

export default function Contacts() {
  const query = () => new URLSearchParams(location.search);
  const [filter, setFilterState] = useState<string | undefined>(() => query().get('label') ?? undefined);
  const [highlight, setHighlight] = useState<string | undefined>(() => query().get('c') ?? undefined);
  const [search, setSearch] = useState(() => query().get('q') ?? '');
  const [asked, setAsked] = useState(search);
  const [sort, setSort] = useState<Sort>(() => (SORTS.some(([s]) => s === query().get('sort')) ? query().get('sort') as Sort : 'given_name'));
  // Typing asks once the typing pauses; what is on screen stays until the answer comes.
  useEffect(() => {
    const timer = setTimeout(() => setAsked(search), 120);
    return () => clearTimeout(timer);
  }, [search]);
  const listed = listKey(filter, asked, sort);
  const fresh = useAllPages<Contact>(listed, holdCards);
  const shown = useRef<typeof fresh>(fresh);
  if (fresh.first.data !== undefined || shown.current.first.data === undefined) shown.current = fresh;
  // A new search or order keeps the last list on screen while it loads, and when offline.
  const list = fresh.first.data === undefined && shown.current.first.data !== undefined ? shown.current : fresh;
  const labels = useResource<ListPage<LabelCount>>(LABELS);
  const at = useValue(path);
  // Another link to this screen (a share link redeemed) names the contact to show.
  useEffect(() => {
    const c = query().get('c');
    if (c) setHighlight(c);
  }, [at]);
  const setFilter = (label: string | undefined) => {
    setFilterState(label);
    history.replaceState(null, '', label ? `/contacts?label=${encodeURIComponent(label)}` : '/contacts');
  };
  const all = list.items;
  const pending = all.filter((c) => c.status === 'pending');
  const active = all.filter((c) => c.status === 'active');
  const ended = all.filter((c) => c.status !== 'pending' && c.status !== 'active');
  const searching = asked.trim() !== '';
  const labelCounts = labels.data?.data ?? [];
  return (
    <>
      <PageHead title="Contacts" lead="The cards people share with you. They stay current: when someone changes a detail, you see it here." />
      <div class="contacts-layout">
        <div class="contacts-main">
          <div class="contacts-find" role="search">
            <div class="find-box">
              <label for="contact-search">Find a contact</label>
              <input id="contact-search" type="search" name="q" value={search} autocomplete="off" spellcheck={false} maxLength={200}
                placeholder="Name, username, label, company…" onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
            </div>
            <div class="find-sort">
              <label for="contact-sort">Sort by</label>
              <select id="contact-sort" name="sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as Sort)}>
                {SORTS.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
              </select>
            </div>
          </div>
          {labelCounts.length ? <LabelFilter labels={labelCounts} filter={filter} onFilter={setFilter} /> : null}
          <Loaded state={list.first} lines={4}>
            {() => (
              <>
                {pending.length
                  ? <Section title="Waiting for approval"><ul class="items people" id="pending">{pending.map((c) => <OtherItem key={c.id} contact={c} />)}</ul></Section>
                  : null}
                {active.length
                  ? (
                    <ContactList contacts={active} sort={sort} listed={listed} more={list !== fresh || list.more} highlight={highlight} onLabel={setFilter}
                      label={filter ? `Contacts labelled ${filter}` : 'Contacts'} />
                  )
                  : searching
                    ? (
                      <section class="card empty-state" id="contacts">
                        <h2>Nobody found for “{asked.trim()}”</h2>
                        <p>The search looks at names, usernames, your labels and what each card shows you.</p>
                        <button type="button" onClick={() => (setSearch(''), setAsked(''))}>Clear the search</button>
                      </section>
                    )
                  : filter
                    ? (
                      <section class="card empty-state" id="contacts">
                        <h2>Nobody labelled “{filter}”</h2>
                        <p>Labels are yours alone: add one to a contact under “Note and labels”.</p>
                        <button type="button" onClick={() => setFilter(undefined)}>Show everyone</button>
                      </section>
                    )
                    : pending.length
                      ? null
                      : (
                        <section class="card empty-state" id="contacts">
                          <h2>{all.length ? 'No cards right now' : 'No contacts yet'}</h2>
                          <p>{all.length ? 'Nobody shares a card with you at the moment. ' : ''}Ask someone for their VID share link or QR code, or add them by username. Their card appears here and stays up to date.</p>
                        </section>
                      )}
                {ended.length ? <Section title="No longer shared"><ul class="items people" id="ended">{ended.map((c) => <OtherItem key={c.id} contact={c} />)}</ul></Section> : null}
              </>
            )}
          </Loaded>
        </div>
        <aside class="contacts-side" aria-label="Add and export">
          <Section title="Add someone">
            <p class="hint">Ask for their share link or QR code, or type their username. They decide which of their cards you see.</p>
            <Subscribe onAdded={setHighlight} />
          </Section>
          {active.length || filter ? <Export /> : null}
        </aside>
      </div>
    </>
  );
}
