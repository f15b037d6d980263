// The signed-in home, like the top of an Apple ID or Google Account page: who you are, your
// name, your country (the default for phone numbers and addresses), and signing out.
import { useId } from 'preact/hooks';
import type { Me } from '../../../client/src/index.js';
import { cache, useResource } from '../core/cache.js';
import { client, session } from '../core/client.js';
import { LIMITS } from '../core/limits.js';
import { navigate } from '../core/router.js';
import { useValue } from '../core/state.js';
import { FormError, TextField, useAction, useDraft, Field } from '../ui/form.js';
import { Loaded, PageHead, Section } from '../ui/layout.js';
import { useCountries } from '../ui/countries.js';
import { day, initials } from '../ui/words.js';

function NameForm({ me }: { me: Me }) {
  const id = useId();
  const name = useDraft(me.display_name ?? '');
  const save = useAction(async () => {
    const updated = await client.me.patch({ display_name: name.value.trim() || null }, { ifMatch: me.version });
    cache.put('/me', updated);
    name.reset();
  }, { done: 'Name saved.', boxes: { '/display_name': { name: 'name', maxLength: LIMITS.displayName } } });
  return (
    <form onSubmit={(e) => (e.preventDefault(), void save.run())}>
      <TextField id={id} label="Display name" hint="How people who see your card know you." autocomplete="name" maxLength={LIMITS.displayName}
        value={name.value} onValue={name.set} error={save.box('/display_name')} />
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy || !name.dirty}>Save name</button>
        {name.dirty ? <button type="button" onClick={() => (name.reset(), save.clear())}>Cancel</button> : null}
      </div>
      <FormError action={save} />
    </form>
  );
}

function CountryForm({ me }: { me: Me }) {
  const id = useId();
  const { countries, loaded } = useCountries();
  const save = useAction(async (code: string) => {
    const updated = await client.me.patch({ default_country: code || null }, { ifMatch: me.version });
    cache.put('/me', updated);
  }, { done: 'Country saved.', boxes: { '/default_country': { name: 'country' } } });
  return (
    <div>
      <Field id={id} label="My country" hint="New phone numbers and addresses start with this country." error={save.box('/default_country')}>
        {(aria) => (
          <select {...aria} name="default_country" autocomplete="country" disabled={!loaded || save.busy} value={me.default_country ?? ''}
            onChange={(e) => void save.run((e.target as HTMLSelectElement).value)}>
            <option value="">Not set</option>
            {countries.map((c) => <option key={c.code} value={c.code}>{c.name}</option>)}
          </select>
        )}
      </Field>
      <FormError action={save} />
    </div>
  );
}

export default function Account() {
  const me = useResource<Me>('/me');
  const signedIn = useValue(session);
  const signOut = useAction(async () => {
    await client.logout().catch(() => undefined);
    navigate('/');
  }, { done: 'Signed out.' });
  return (
    <Loaded state={me} lines={6}>
      {(me) => (
        <>
          <div class="hello">
            <div class="avatar large" aria-hidden="true">{initials(me.display_name || me.username)}</div>
            <div>
              <PageHead title={me.display_name || me.username} />
              <p class="lead">@<span data-testid="username">{me.username}</span> · member since {day(me.created_at)}</p>
            </div>
          </div>
          {signedIn && !signedIn.trusted ? (
            <p class="notice" role="note">This device is signed in for now only: it is signed out within 12 hours, and security settings need a device you keep.</p>
          ) : null}
          <Section title="Your name"><NameForm me={me} /></Section>
          <Section title="Your country"><CountryForm me={me} /></Section>
          <div class="actions end">
            <button type="button" id="logout" class="secondary" disabled={signOut.busy} onClick={() => void signOut.run()}>Sign out</button>
          </div>
        </>
      )}
    </Loaded>
  );
}
