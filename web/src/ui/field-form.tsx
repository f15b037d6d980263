// The form of one field, country first: the country picker (by name) starts at "My country",
// and for an address the boxes, their names and which ones are required follow the chosen
// country's rules from the catalogue. Phone numbers format as they are typed.
import { useId, useState } from 'preact/hooks';
import type { Schemas } from '../../../client/src/api.js';
import type { Me } from '../../../client/src/index.js';
import { client } from '../core/client.js';
import { LIMITS } from '../core/limits.js';
import type { BoxWords } from '../core/messages.js';
import { TYPE_NOUNS } from '../field-display.js';
import { countryName, useCountries } from './countries.js';
import { Field, FormError, useAction } from './form.js';
import { PhoneInput } from './phone-input.js';
import { addressParts, partsOf, TYPE_HINTS } from './value-parts.js';
import type { Part } from './value-parts.js';

type FieldType = Schemas['FieldType'];
type Field = Schemas['Field'];
type Values = Record<string, string>;

const LABEL_MAX = LIMITS.fieldLabel;

/** A stored value as the boxes hold it (strings; street lines one per line). */
function valuesOf(type: FieldType, field: Field | undefined): Values {
  if (!field) return {};
  const shown = field.original ?? field.value;
  if (type.key === 'phone') return { '': String((field.details as { international?: string }).international ?? shown ?? '') };
  if (shown === null || typeof shown !== 'object') return { '': String(shown ?? '') };
  return Object.fromEntries(Object.entries(shown as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) ? v.join('\n') : String(v ?? '')]));
}

/** The boxes' text as the value the server takes. */
function valueOf(type: FieldType, parts: Part[], values: Values): unknown {
  if (parts.length === 1 && parts[0]!.key === '') {
    const text = values[''] ?? '';
    return type.key === 'note' ? text : text.trim();
  }
  const value: Record<string, unknown> = {};
  for (const part of parts) {
    const text = (values[part.key] ?? '').trim();
    if (!text) continue;
    if (part.kind === 'lines') value[part.key] = text.split('\n').map((l) => l.trim()).filter(Boolean);
    // By the schema's type, not the box's: a month chosen from a list of names is still a number.
    else if (part.numeric) value[part.key] = Number(text);
    else value[part.key] = text;
  }
  return value;
}

/** `onDone`: with the id of the field saved, or nothing when the form was cancelled. */
export function FieldForm({ type, field, me, onDone }: { type: FieldType; field?: Field; me: Me; onDone: (savedId?: string) => void }) {
  const { countries } = useCountries();
  const [country, setCountry] = useState(field?.country ?? me.default_country ?? '');
  const [values, setValues] = useState<Values>(() => valuesOf(type, field));
  const [label, setLabel] = useState(field?.label ?? '');
  const countryId = useId();
  const labelId = useId();
  const base = useId();
  const takesCountry = type.country !== 'none';
  const rules = type.countries ?? {};
  const addressRule = type.key === 'postal_address' && country ? (rules[country] as Schemas['AddressCountryRule'] | undefined) : undefined;
  const parts = type.key === 'postal_address' ? (addressRule ? addressParts(type, addressRule) : []) : partsOf(type);
  const named = countryName(country, rules[country]?.name);

  const boxes: Record<string, BoxWords> = { '/country': { name: 'country' }, '/label': { name: 'label', maxLength: LABEL_MAX } };
  for (const part of parts) {
    const pointer = part.key ? `/value/${part.key}` : '/value';
    boxes[pointer] = {
      name: part.label.toLowerCase(),
      maxLength: part.maxLength,
      ...(takesCountry && named ? { country: named } : {}),
      ...(part.key === 'postal_code' && addressRule?.postal_code?.examples[0] ? { example: addressRule.postal_code.examples[0] } : {}),
    };
  }
  // A failure about the whole value of a one-box type sits under that box.
  if (parts.length > 1) boxes['/value'] = { name: TYPE_NOUNS[type.key] ?? 'value' };

  const save = useAction(async () => {
    const body = { value: valueOf(type, parts, values), label: label.trim() || null, ...(takesCountry && country ? { country } : {}) };
    const saved = field
      ? await client.request('PATCH', '/me/fields/{id}', { params: { id: field.id }, body, ifMatch: field.version })
      : await client.request('POST', '/me/fields', { body: { type: type.key, ...body } });
    onDone((saved as { id?: string } | undefined)?.id ?? field?.id);
  }, { done: field ? 'Saved.' : `${type.label} added.`, boxes });

  const set = (key: string) => (value: string) => setValues((v) => ({ ...v, [key]: value }));
  const noun = TYPE_NOUNS[type.key] ?? type.label.toLowerCase();
  const suggestions = [...new Set([...type.suggested_labels, ...(type.key === 'phone' ? ['mobile', 'home', 'work'] : type.key === 'email' || type.key === 'postal_address' ? ['home', 'work'] : [])])];

  return (
    <form class="field-form" onSubmit={(e) => (e.preventDefault(), void save.run())} aria-label={field ? `Edit ${noun}` : `New ${noun}`}>
      {TYPE_HINTS[type.key] ? <p class="hint block">{TYPE_HINTS[type.key]}</p> : null}
      {takesCountry ? (
        <Field id={countryId} label="Country" optional={type.country === 'optional'} error={save.box('/country')}
          hint={type.key === 'phone' ? 'For numbers typed without + and a country code.' : undefined}>
          {(aria) => (
            <select {...aria} name="country" autocomplete="country" required={type.country === 'required'} value={country}
              onChange={(e) => {
                setCountry((e.target as HTMLSelectElement).value);
                // What was said of the boxes was said of another country's rules (a UK postcode
                // under a US ZIP code box): it goes with them.
                save.clear();
              }}>
              {type.country === 'required' && country ? null : <option value="">{type.country === 'required' ? 'Choose a country' : 'None'}</option>}
              {countries.map((c) => <option key={c.code} value={c.code}>{c.name}</option>)}
            </select>
          )}
        </Field>
      ) : null}
      {type.key === 'postal_address' && !addressRule ? <p class="hint block">Choose the country first: its post decides what an address needs.</p> : null}
      <div class={parts.length > 1 ? 'form-grid' : undefined}>
        {parts.map((part) => (
          <PartBox key={part.key} part={part} id={`${base}-${part.key || 'value'}`} value={values[part.key] ?? ''} onValue={set(part.key)}
            error={save.box(part.key ? `/value/${part.key}` : '/value')} country={type.key === 'phone' ? country : undefined} />
        ))}
      </div>
      <Field id={labelId} label="Label" optional error={save.box('/label')} hint={suggestions.length ? `Such as ${suggestions.slice(0, 3).join(', ')}` : undefined}>
        {(aria) => (
          <>
            <input {...aria} name="label" maxLength={LABEL_MAX} list={`${labelId}-list`} autocomplete="off" value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
            <datalist id={`${labelId}-list`}>{suggestions.map((s) => <option key={s} value={s} />)}</datalist>
          </>
        )}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy || (type.key === 'postal_address' && !addressRule)}>{field ? 'Save' : `Add ${noun}`}</button>
        <button type="button" onClick={() => onDone()}>Cancel</button>
      </div>
      <FormError action={save} />
    </form>
  );
}

function PartBox({ part, id, value, onValue, error, country }: {
  part: Part; id: string; value: string; onValue: (v: string) => void; error?: string; country?: string;
}) {
  const { input = {} } = part;
  const common = { name: part.key || 'value', required: part.required, maxLength: part.kind === 'lines' ? undefined : part.maxLength, autocomplete: input.autoComplete, autocapitalize: input.autoCapitalize, spellcheck: input.spellcheck };
  return (
    <Field id={id} label={part.label} optional={!part.required} error={error} hint={part.hint}>
      {(aria) => {
        if (country !== undefined) return <PhoneInput {...aria} {...common} country={country} value={value} onValue={onValue} />;
        if (part.kind === 'choice') {
          return (
            <select {...aria} name={common.name} required={part.required} autocomplete={input.autoComplete} value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value)}>
              <option value="">{part.required ? 'Choose…' : 'None'}</option>
              {(part.choices ?? []).map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
            </select>
          );
        }
        if (part.kind === 'lines' || part.kind === 'longtext') {
          return <textarea {...aria} {...(common as object)} rows={part.kind === 'lines' ? 2 : 4} value={value} onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)} />;
        }
        return (
          <input {...aria} {...(common as object)} type={(part.kind === 'number' ? 'text' : input.type ?? 'text') as 'text'} inputMode={(part.kind === 'number' ? 'numeric' : input.inputMode) as never}
            pattern={part.kind === 'number' ? '[0-9]*' : undefined} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} />
        );
      }}
    </Field>
  );
}
