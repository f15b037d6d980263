// Identity fields: list, add, edit, remove; the forms come from GET /field-types.
import type { Schemas } from '../../../client/src/api.js';
import { isProblem } from '../../../client/src/index.js';
import { announce, client, explain, type View } from '../app.js';
import { button, field, h, message, section } from '../dom.js';
import { display } from '../field-display.js';
import { valueForm } from '../fields-form.js';

type FieldType = Schemas['FieldType'];
type Field = Schemas['Field'];

export default async function fields(): Promise<View> {
  const catalog = (await client.request('GET', '/field-types', { auth: 'none' })).data as FieldType[];
  const byKey = new Map(catalog.map((t) => [t.key, t]));
  const list = h('ul', { class: 'items', id: 'fields' });
  const editor = h('div', { id: 'field-editor' });
  const error = message('error');

  const draw = async () => {
    const all: Field[] = [];
    for await (const f of client.list('/me/fields', { query: { limit: 200 } })) all.push(f as Field);
    list.replaceChildren(...(all.length ? all.map(item) : [h('li', {}, 'No fields yet.')]));
  };

  function item(f: Field): HTMLLIElement {
    const type = byKey.get(f.type);
    return h('li', { 'data-field': f.id, 'data-type': f.type },
      h('div', { class: 'item-main' },
        h('strong', {}, type?.label ?? f.type, f.label ? ` · ${f.label}` : ''),
        h('div', { class: 'field-value' }, display(f)),
        f.country ? h('div', { class: 'item-meta' }, f.country) : null),
      h('div', { class: 'actions' },
        button('Edit', () => openEditor(type!, f), { 'aria-label': `Edit ${type?.label ?? f.type}${f.label ? ` ${f.label}` : ''}` }),
        button('Remove', async () => {
          try {
            await client.request('DELETE', '/me/fields/{id}', { params: { id: f.id }, ifMatch: f.version });
            announce('Field removed.');
            await draw();
          } catch (failure) {
            error.textContent = explain(failure);
          }
        }, { class: 'danger', 'aria-label': `Remove ${type?.label ?? f.type}${f.label ? ` ${f.label}` : ''}` })));
  }

  function openEditor(type: FieldType, existing?: Field): void {
    const form = valueForm(type, existing ? existing.original ?? existing.value : undefined);
    const labelsId = `labels-${type.key}`;
    const label = h('input', { name: 'label', maxlength: 64, list: labelsId, value: existing?.label ?? '' });
    const country = type.country === 'none' ? undefined : h('input', { name: 'country', maxlength: 2, autocomplete: 'country', autocapitalize: 'characters', value: existing?.country ?? '' });
    const msg = message('error');
    editor.replaceChildren(section(existing ? `Edit ${type.label}` : `Add ${type.label}`,
      h('p', { class: 'hint' }, type.description),
      h('form', {
        onsubmit: (async (e: Event) => {
          e.preventDefault();
          msg.textContent = '';
          form.errors([]);
          const body = {
            value: form.read(),
            ...(label.value.trim() ? { label: label.value.trim() } : {}),
            ...(country && country.value.trim() ? { country: country.value.trim().toUpperCase() } : {}),
          };
          try {
            if (existing) await client.request('PATCH', '/me/fields/{id}', { params: { id: existing.id }, body, ifMatch: existing.version });
            else await client.request('POST', '/me/fields', { body: { type: type.key, ...body } });
            editor.replaceChildren();
            announce(existing ? 'Field saved.' : 'Field added.');
            await draw();
          } catch (failure) {
            if (isProblem(failure) && failure.errors?.length) form.errors(failure.errors);
            msg.textContent = explain(failure);
          }
        }) as EventListener,
      },
        form.element,
        field('Label (optional)', label), h('datalist', { id: labelsId }, ...type.suggested_labels.map((l) => h('option', { value: l }))),
        country ? field(`Country${type.country === 'required' ? '' : ' (optional)'}`, country, 'Two letters, e.g. DE, GB, US.') : null,
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save'), button('Cancel', () => editor.replaceChildren())),
        msg)));
    editor.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }

  const pick = h('select', { name: 'field_type' }, ...catalog.map((t) => h('option', { value: t.key }, t.label)));
  return {
    title: 'Fields',
    async render(main) {
      main.append(
        h('h1', {}, 'Identity fields'),
        section('Your fields', list, error),
        section('Add a field', h('form', { onsubmit: ((e: Event) => (e.preventDefault(), openEditor(byKey.get(pick.value)!))) as EventListener }, field('Type', pick), h('button', { type: 'submit' }, 'Add'))),
        editor,
      );
      await draw();
    },
    async onSignal(signal) {
      if (signal.kind === 'fields.changed') await draw();
    },
  };
}
