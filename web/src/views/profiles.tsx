// Profiles: who sees what. Create and rename profiles, pick the fields each one shows and their
// order, and watch the card its audience gets change beside the editor. One profile can be the
// public card at /@username. Everything shown comes from the resource cache, which profiles.changed
// (also sent when a field or the display name changes what a card shows) keeps current.
import { useId, useState } from 'preact/hooks';
import type { Card, Exposure, Me, Profile, Schemas } from '../../../client/src/index.js';
import { isProblem } from '../../../client/src/index.js';
import { useResource } from '../core/cache.js';
import type { ListPage } from '../core/cache.js';
import { client } from '../core/client.js';
import { display, FIELDS_KEY } from '../field-display.js';
import { CardView } from '../ui/card.js';
import { useFieldTypes } from '../ui/countries.js';
import { Confirm, FormError, TextField, useAction, useDraft } from '../ui/form.js';
import { Empty, Failed, Loaded, PageHead, Section, Skeleton } from '../ui/layout.js';
import { PROFILE_BOXES } from '../ui/sharing-limits.js';

type Field = Schemas['Field'];

export const PROFILES = '/profiles?limit=50';
const NAME_BOX = { name: 'name', maxLength: PROFILE_BOXES.name };
/** A taken name is said by the name box, not above the form. */
const nameTaken = (error: unknown) =>
  isProblem(error, 'profile_name_taken') ? { boxes: { '/name': 'You have a profile with that name already. Choose another.' } } : undefined;

/** The catalogue's word for a field type ("Phone"). */
function useTypeLabel(): (type: string) => string {
  const types = useFieldTypes();
  const labels = new Map((types.data?.data ?? []).map((type) => [type.key, type.label]));
  return (type) => labels.get(type) ?? 'Detail';
}

function NewProfile({ onCreated }: { onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const id = useId();
  const create = useAction(async () => {
    const created = await client.profiles.create({ name: name.trim() });
    setName('');
    onCreated(created.id);
    return created;
  }, { done: (created) => `Profile “${(created as Profile).name}” created.`, boxes: { '/name': NAME_BOX }, explain: nameTaken });
  return (
    <form class="inline-form" onSubmit={(event) => (event.preventDefault(), void create.run())}>
      <TextField id={id} label="New profile" name="profile_name" value={name} onValue={setName} maxLength={PROFILE_BOXES.name}
        required autocomplete="off" error={create.box('/name')} />
      <button type="submit" class="primary" disabled={create.busy}>Create</button>
      <FormError action={create} />
    </form>
  );
}

function Chips({ profiles, selected, onSelect }: { profiles: Profile[]; selected: string | undefined; onSelect: (id: string) => void }) {
  return (
    <ul class="chips" id="profiles">
      {profiles.map((p) => (
        <li key={p.id}>
          <button type="button" class={`chip${p.id === selected ? ' selected' : ''}`} aria-pressed={p.id === selected ? 'true' : 'false'} data-profile={p.id} onClick={() => onSelect(p.id)}>
            {p.name}
            {p.public ? <span class="badge">Public</span> : null}
            <span class="chip-count" aria-label={`${p.field_count} ${p.field_count === 1 ? 'field' : 'fields'}`}>{p.field_count}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function Settings({ profile, otherPublic, onDeleted }: { profile: Profile; otherPublic: Profile | undefined; onDeleted: () => void }) {
  const name = useDraft(profile.name);
  const description = useDraft(profile.description ?? '');
  const [confirming, setConfirming] = useState(false);
  const base = useId();
  const save = useAction(async () => {
    const saved = await client.profiles.update(profile.id, { name: name.value.trim(), description: description.value.trim() || null }, { ifMatch: profile.version });
    name.reset();
    description.reset();
    return saved;
  }, { done: 'Profile saved.', boxes: { '/name': NAME_BOX, '/description': { name: 'description', maxLength: PROFILE_BOXES.description } }, explain: nameTaken });
  // What the box shows while the change is on its way (the server's answer replaces it).
  const [publicDraft, setPublicDraft] = useState<boolean | undefined>(undefined);
  const [confirmingPublic, setConfirmingPublic] = useState(false);
  const publicPreview = useResource<Card>(confirmingPublic ? `/profiles/${profile.id}/preview` : undefined);
  const setPublic = useAction(async (on: boolean) => {
    // One public profile at a time: the current one steps down first.
    if (on && otherPublic) await client.profiles.update(otherPublic.id, { public: false }, { ifMatch: otherPublic.version });
    await client.profiles.update(profile.id, { public: on }, { ifMatch: profile.version });
    setPublicDraft(undefined);
    return on;
  }, { done: (on) => (on ? `“${profile.name}” is your public card.` : `“${profile.name}” is private again.`) });
  const remove = useAction(async () => {
    await client.profiles.remove(profile.id, { ifMatch: profile.version });
    onDeleted();
  }, { done: `Profile “${profile.name}” deleted.` });
  return (
    <div>
      <form onSubmit={(event) => (event.preventDefault(), void save.run())}>
        <TextField id={`${base}-name`} label="Name" name="name" value={name.value} onValue={name.set} maxLength={PROFILE_BOXES.name} required autocomplete="off"
          error={save.box('/name')} hint="Only you see it: the people you give this profile never learn its name." />
        <TextField id={`${base}-description`} label="Description" optional name="description" value={description.value} onValue={description.set}
          maxLength={PROFILE_BOXES.description} autocomplete="off" error={save.box('/description')} hint="Only you see it." />
        <div class="actions">
          <button type="submit" disabled={save.busy || !(name.dirty || description.dirty)}>Save</button>
          {name.dirty || description.dirty ? <button type="button" onClick={() => (name.reset(), description.reset(), save.clear())}>Cancel</button> : null}
        </div>
        <FormError action={save} />
      </form>
      <div class="check">
        <input type="checkbox" id={`${base}-public`} name="public" checked={publicDraft ?? profile.public} disabled={setPublic.busy}
          onChange={(event) => {
            const on = (event.target as HTMLInputElement).checked;
            setPublicDraft(on);
            // Going public is asked once, with the card strangers will see; going private is not.
            if (on) setConfirmingPublic(true);
            else if (confirmingPublic) (setConfirmingPublic(false), setPublicDraft(undefined));
            else void setPublic.run(on).then((done) => done || setPublicDraft(undefined));
          }} />
        <label for={`${base}-public`}>
          Public card: anyone with my username can see this profile
          {otherPublic ? <span class="hint block">“{otherPublic.name}” is your public card now; this replaces it.</span> : null}
        </label>
      </div>
      {confirmingPublic
        ? (
          <Confirm id="public-confirm" label={`Make “${profile.name}” your public card?`} alert
            details={<Loaded state={publicPreview}>{(card) => <CardView card={card} empty="Only your name: this profile shows no fields yet." />}</Loaded>}
            verb="Make it public" verbId="confirm-public" primary
            action={{ busy: setPublic.busy, run: () => setPublic.run(true).then((done) => (setConfirmingPublic(false), done || setPublicDraft(undefined), done)) }}
            keep="Keep it private" onKeep={() => (setConfirmingPublic(false), setPublicDraft(undefined))}>
            Make “{profile.name}” your public card? Anyone who knows your username can see this, without signing in:
          </Confirm>
        )
        : null}
      <FormError action={setPublic} />
      {confirming
        ? (
          <Confirm id="delete-confirm" label={`Delete “${profile.name}”?`} alert verb="Delete profile" verbId="confirm-delete" action={remove}
            onKeep={() => (setConfirming(false), remove.clear())} failure={remove}>
            Delete “{profile.name}”? The people who see it lose its card. This cannot be undone.
          </Confirm>
        )
        : <button type="button" class="danger subtle" id="delete-profile" onClick={() => setConfirming(true)}>Delete this profile…</button>}
    </div>
  );
}

function ExposureItem({ profile, exposure, index, count, field, typeLabel }: {
  profile: Profile; exposure: Exposure; index: number; count: number; field: Field | undefined; typeLabel: (type: string) => string;
}) {
  const type = field ? typeLabel(field.type) : 'Detail';
  const label = useDraft(exposure.label ?? '');
  const id = useId();
  const change = useAction(async (body: { label?: string | null; position?: number } | 'hide') => {
    if (body === 'hide') await client.profiles.hide(profile.id, exposure.field_id);
    else await client.profiles.expose(profile.id, exposure.field_id, body);
    label.reset();
    return body;
  }, {
    done: (body) => (body === 'hide' ? `${type} hidden from ${profile.name}.`
      : (body as { label?: unknown }).label !== undefined ? 'Label saved.'
      : `${type} moved ${((body as { position: number }).position < index) ? 'up' : 'down'}.`),
    boxes: { '/label': { name: 'label', maxLength: PROFILE_BOXES.label } },
  });
  const saveLabel = () => {
    if (label.dirty && label.value.trim() !== (exposure.label ?? '')) void change.run({ label: label.value.trim() || null });
  };
  return (
    <li data-exposure={exposure.field_id}>
      <div class="item-main">
        <strong>{type}</strong>
        <div class="field-value">{field ? display(field) : ''}</div>
        <TextField id={id} label="Shown as" optional name="label" value={label.value} onValue={label.set} maxLength={PROFILE_BOXES.label} autocomplete="off"
          error={change.box('/label')} {...{ placeholder: field?.label ?? type, onBlur: saveLabel }} />
        <FormError action={change} />
      </div>
      <div class="actions">
        <button type="button" aria-label={`Move ${type} up`} disabled={index === 0 || change.busy} onClick={() => void change.run({ position: index - 1 })}>↑</button>
        <button type="button" aria-label={`Move ${type} down`} disabled={index === count - 1 || change.busy} onClick={() => void change.run({ position: index + 1 })}>↓</button>
        <button type="button" aria-label={`Hide ${type} from ${profile.name}`} disabled={change.busy} onClick={() => void change.run('hide')}>Hide</button>
      </div>
    </li>
  );
}

function Available({ profile, field, typeLabel }: { profile: Profile; field: Field; typeLabel: (type: string) => string }) {
  const type = typeLabel(field.type);
  const show = useAction(async () => {
    await client.profiles.expose(profile.id, field.id);
  }, { done: `Now showing ${type}.` });
  return (
    <li data-available={field.id}>
      <div class="item-main">
        <strong>{type}{field.label ? ` · ${field.label}` : ''}</strong>
        <div class="field-value">{display(field)}</div>
        <FormError action={show} />
      </div>
      <button type="button" disabled={show.busy} aria-label={`Show ${type}${field.label ? ` ${field.label}` : ''} in ${profile.name}`} onClick={() => void show.run()}>Show</button>
    </li>
  );
}

function Editor({ profile, all, fields, me, onDeleted }: { profile: Profile; all: Profile[]; fields: Field[]; me: Me; onDeleted: () => void }) {
  const exposures = useResource<ListPage<Exposure>>(`/profiles/${profile.id}/exposures?limit=200`);
  const preview = useResource<Card>(`/profiles/${profile.id}/preview`);
  const typeLabel = useTypeLabel();
  const byId = new Map(fields.map((f) => [f.id, f]));
  const otherPublic = all.find((p) => p.public && p.id !== profile.id);
  return (
    <div class="profile-workspace">
      <div class="profile-editor">
        <Section title={`“${profile.name}”`}>
          <Settings key={profile.id} profile={profile} otherPublic={otherPublic} onDeleted={onDeleted} />
        </Section>
        <Section title="Shown in this profile">
          <Loaded state={exposures}>
            {(page) => page.data.length
              ? (
                <ol class="exposures" id="exposures">
                  {page.data.map((e, i) => <ExposureItem key={e.field_id} profile={profile} exposure={e} index={i} count={page.data.length} field={byId.get(e.field_id)} typeLabel={typeLabel} />)}
                </ol>
              )
              : <Empty>Nothing yet: pick fields below. The card shows them in this order.</Empty>}
          </Loaded>
        </Section>
        <Section title="Your other fields">
          <Loaded state={exposures}>
            {(page) => {
              const shown = new Set(page.data.map((e) => e.field_id));
              const hidden = fields.filter((f) => !shown.has(f.id));
              if (hidden.length) return <ul class="items" id="field-picker">{hidden.map((f) => <Available key={f.id} profile={profile} field={f} typeLabel={typeLabel} />)}</ul>;
              return (
                <p class="hint" id="field-picker">
                  {fields.length ? 'Every one of your fields is in this profile.' : <>You have no fields yet. <a href="/fields" data-link>Add your phone, e-mail or address</a> first.</>}
                </p>
              );
            }}
          </Loaded>
        </Section>
      </div>
      <aside class="profile-preview" aria-label="Preview">
        <h2>{profile.public ? 'Your public card' : `What “${profile.name}” sees`}</h2>
        <Loaded state={preview}>{(card) => <CardView card={card} empty="This card shows only your name until you add fields." />}</Loaded>
        {profile.public
          ? <p class="hint">Anyone can open it: <a href={`/@${encodeURIComponent(me.username)}`} id="open-public" data-link>/@{me.username}</a></p>
          : <p class="hint">Exactly this, and nothing else, reaches the people you give this profile.</p>}
      </aside>
    </div>
  );
}

export default function Profiles() {
  const profiles = useResource<ListPage<Profile>>(PROFILES);
  const fields = useResource<ListPage<Field>>(FIELDS_KEY);
  const me = useResource<Me>('/me');
  const [chosen, setChosen] = useState<string | undefined>(() => new URLSearchParams(location.search).get('p') ?? undefined);
  const select = (id: string | undefined) => {
    setChosen(id);
    history.replaceState(null, '', id ? `/profiles?p=${encodeURIComponent(id)}` : '/profiles');
  };
  const all = profiles.data?.data ?? [];
  // A profile deleted elsewhere (or none chosen yet): the first one.
  const selected = all.find((p) => p.id === chosen) ?? all[0];
  return (
    <>
      <PageHead title="Profiles" lead="A profile is what one audience sees: pick the fields for “Work”, “Family” or your public card. People only ever see the card of the profile you give them, never its name." />
      <Section title="Your profiles">
        <Loaded state={profiles} lines={1}>{(page) => (page.data.length ? <Chips profiles={page.data} selected={selected?.id} onSelect={select} /> : null)}</Loaded>
        <NewProfile onCreated={select} />
      </Section>
      {profiles.data === undefined
        ? null
        : selected
          ? (fields.data && me.data
            ? <Editor key={selected.id} profile={selected} all={all} fields={fields.data.data} me={me.data} onDeleted={() => select(undefined)} />
            : fields.error !== undefined && !fields.loading ? <Failed error={fields.error} /> : <Skeleton lines={4} />)
          : (
            <section class="card empty-state">
              <h2>No profiles yet</h2>
              <p>Create your first profile above, for example “Work”. Then choose which of your fields it shows; you see the card people will get as you go.</p>
            </section>
          )}
    </>
  );
}
