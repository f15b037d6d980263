// Your details (identity fields): each one with its value as people read it, edited in place
// next to the item; a new one starts by picking its kind. Kept current by fields.changed.
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import type { Me } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client } from '../core/client.js';
import { display, FIELDS_KEY, thumbnailOf, TYPE_NOUNS } from '../field-display.js';
import { useFieldTypes } from '../ui/countries.js';
import { FieldForm } from '../ui/field-form.js';
import { Confirm, FormError, useAction } from '../ui/form.js';
import { Empty, Loaded, PageHead, Section } from '../ui/layout.js';
import { PhotoPicker } from '../ui/photo-picker.js';

type FieldType = Schemas['FieldType'];
type Field = Schemas['Field'];

/** A phone's kind of line, as people say it (the catalogue's own names are for programs). */
const LINE: Record<string, string> = {
  mobile: 'Mobile', fixed_line: 'Landline', fixed_line_or_mobile: 'Landline or mobile', toll_free: 'Free to call',
  premium_rate: 'Premium rate', voip: 'Internet phone', pager: 'Pager', personal_number: 'Personal number', uan: 'Company number', voicemail: 'Voicemail', shared_cost: 'Shared cost',
};

function meta(f: Field, type: FieldType | undefined): string {
  const parts: string[] = [];
  if (f.label && type) parts.push(type.label);
  const line = LINE[(f.details as { line_type?: string }).line_type ?? ''];
  if (f.type === 'phone' && line && line.toLowerCase() !== f.label?.toLowerCase()) parts.push(line);
  // An address prints its country itself; a phone number says its own with + and its code.
  return parts.join(' · ');
}

/**
 * Keyboard focus on a field just saved, once the list shows it: without it focus falls to the
 * page when the form that held it goes, and a keyboard or screen-reader user starts over at the top.
 */
function focusField(id: string | undefined): void {
  if (!id) return;
  let tries = 0;
  const attempt = () => {
    const item = document.querySelector<HTMLElement>(`#fields li[data-field="${CSS.escape(id)}"]`);
    if (item) return item.focus();
    if (++tries < 30) requestAnimationFrame(attempt);
  };
  requestAnimationFrame(attempt);
}

function FieldItem({ f, type, me }: { f: Field; type: FieldType | undefined; me: Me }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const title = f.label ? f.label.replace(/^./, (c) => c.toUpperCase()) : type?.label ?? 'Detail';
  const noun = TYPE_NOUNS[f.type] ?? 'detail';
  const photo = f.type === 'photo' ? (f.value as { photo_id: string }).photo_id : undefined;
  const remove = useAction(async () => {
    // A photo goes whole: the server keeps no picture nobody can be shown.
    if (photo) await client.photos.remove(photo);
    else await client.request('DELETE', '/me/fields/{id}', { params: { id: f.id }, ifMatch: f.version });
  }, { done: `The ${noun} is removed.` });
  const thumbnail = thumbnailOf(f);
  return (
    <li data-field={f.id} data-type={f.type} class={editing ? 'editing' : undefined} tabIndex={-1}>
      {editing && type ? (
        <div class="item-edit">
          <h3>{`Edit ${title.toLowerCase() === type.label.toLowerCase() ? noun : `${title} (${noun})`}`}</h3>
          <FieldForm type={type} field={f} me={me} onDone={(saved) => (setEditing(false), focusField(saved ?? f.id))} />
        </div>
      ) : (
        <>
          <div class="item-main">
            <strong>{title}</strong>
            {thumbnail ? <img class="field-photo" src={thumbnail} alt="Your photo" width={48} height={48} /> : <div class="field-value">{display(f)}</div>}
            {meta(f, type) ? <div class="item-meta">{meta(f, type)}</div> : null}
            {confirming ? (
              <Confirm label={`Remove ${title}?`} verb="Remove" action={remove} onKeep={() => setConfirming(false)}>
                Remove this {noun}? Profiles that show it stop showing it.
              </Confirm>
            ) : null}
            <FormError action={remove} />
          </div>
          {confirming ? null : (
            <div class="actions">
              {photo ? null : <button type="button" onClick={() => setEditing(true)} aria-label={`Edit ${title}`}>Edit</button>}
              <button type="button" class="danger subtle" onClick={() => setConfirming(true)} aria-label={`Remove ${title}`}>Remove</button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

/** Picks the kind of a new detail; kinds an account holds only one of are offered until used. */
function AddField({ types, fields, me }: { types: FieldType[]; fields: Field[]; me: Me }) {
  const [picking, setPicking] = useState(false);
  const [type, setType] = useState<FieldType | undefined>(undefined);
  if (type?.key === 'photo') {
    return (
      <Section title="New photo" id="field-editor">
        <PhotoPicker onDone={() => (setType(undefined), setPicking(false))} />
      </Section>
    );
  }
  if (type) {
    return (
      <Section title={`New ${TYPE_NOUNS[type.key] ?? type.label.toLowerCase()}`} id="field-editor">
        <FieldForm type={type} me={me} onDone={(saved) => (setType(undefined), setPicking(false), focusField(saved))} />
      </Section>
    );
  }
  if (!picking) {
    return (
      <div class="actions add-row">
        <button type="button" class="primary" onClick={() => setPicking(true)} aria-expanded="false">Add a detail</button>
      </div>
    );
  }
  const held = new Set(fields.map((f) => f.type));
  return (
    <Section title="What would you like to add?" id="field-types">
      <ul class="type-grid">
        {types.map((t) => {
          const taken = !t.multiple && held.has(t.key);
          return (
            <li key={t.key}>
              <button type="button" disabled={taken} onClick={() => setType(t)} data-type={t.key}>
                {t.label}
                {taken ? <span class="item-meta"> · added</span> : null}
              </button>
            </li>
          );
        })}
      </ul>
      <div class="actions"><button type="button" onClick={() => setPicking(false)}>Cancel</button></div>
    </Section>
  );
}

export default function Fields() {
  const fields = useResource<ListPage<Field>>(FIELDS_KEY);
  const types = useFieldTypes();
  const me = useResource<Me>('/me');
  return (
    <>
      <PageHead title="Your details" lead="Phone numbers, addresses and more. Each profile chooses which of them it shows." />
      <Loaded state={types} lines={2}>
        {(catalogue) => (
          <Loaded state={me} lines={1}>
            {(me) => {
              const byKey = new Map(catalogue.data.map((t) => [t.key, t]));
              return (
                <>
                  <Section title="Your fields">
                    <Loaded state={fields}>
                      {(page) => page.data.length ? (
                        <ul class="items" id="fields">{page.data.map((f) => <FieldItem key={f.id} f={f} type={byKey.get(f.type)} me={me} />)}</ul>
                      ) : (
                        <Empty>Nothing here yet. Add a phone number or an e-mail address, then choose in a profile who sees it.</Empty>
                      )}
                    </Loaded>
                  </Section>
                  {fields.data ? <AddField types={catalogue.data} fields={fields.data.data} me={me} /> : null}
                </>
              );
            }}
          </Loaded>
        )}
      </Loaded>
    </>
  );
}
