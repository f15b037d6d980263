// A form for one field type, built from its value_schema (the catalog decides; nothing is hard-coded).
import type { Schemas } from '../../client/src/api.js';
import { field, h, uid } from './dom.js';

type FieldType = Schemas['FieldType'];
interface JsonSchema { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; required?: string[]; enum?: unknown[]; maxLength?: number; minimum?: number; maximum?: number; title?: string }

export interface ValueForm {
  element: HTMLElement;
  read(): unknown;
  /** Shows the server's errors next to the inputs (paths like /value/postal_code). */
  errors(list: { path: string; message: string }[]): void;
}

const human = (key: string) => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

export function valueForm(type: FieldType, initial: unknown): ValueForm {
  const schema = type.value_schema as JsonSchema;
  const inputs = new Map<string, { el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; kind: string }>();
  const wrap = h('div', {});

  const control = (path: string, name: string, s: JsonSchema, value: unknown, required: boolean) => {
    const kind = typeOf(s) ?? 'string';
    let el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    const choices = (s.enum as string[] | undefined) ?? (path === '' ? type.values : undefined) ?? (name === 'platform' ? type.platforms?.map((p) => p.key) : undefined);
    if (choices) {
      el = h('select', { name }, h('option', { value: '' }, '—'), ...choices.map((c) => h('option', { value: c }, type.platforms?.find((p) => p.key === c)?.label ?? c)));
      el.value = value === undefined || value === null ? '' : String(value);
    } else if (kind === 'array' || type.key === 'note') {
      el = h('textarea', { name, rows: kind === 'array' ? 3 : 4 });
      el.value = Array.isArray(value) ? value.join('\n') : value === undefined || value === null ? '' : String(value);
    } else {
      el = h('input', { name, type: kind === 'integer' || kind === 'number' ? 'number' : 'text', maxlength: s.maxLength, min: s.minimum, max: s.maximum });
      el.value = value === undefined || value === null ? '' : String(value);
    }
    if (required) el.setAttribute('aria-required', 'true');
    el.id = uid('v');
    inputs.set(path, { el, kind });
    const hint = kind === 'array' ? 'One per line.' : undefined;
    return field(`${s.title ?? (path === '' ? type.label : human(name))}${required ? '' : ' (optional)'}`, el, hint);
  };

  if (typeOf(schema) === 'object' && schema.properties) {
    const current = (initial ?? {}) as Record<string, unknown>;
    const box = h('fieldset', {}, h('legend', {}, type.label));
    for (const [name, s] of Object.entries(schema.properties)) box.append(control(`/${name}`, name, s, current[name], !!schema.required?.includes(name)));
    wrap.append(box);
  } else {
    wrap.append(control('', 'value', schema, initial, true));
  }
  const errorBox = h('ul', { class: 'msg error', role: 'alert' });
  wrap.append(errorBox);

  return {
    element: wrap,
    read() {
      const one = ({ el, kind }: { el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; kind: string }): unknown => {
        const text = el.value;
        if (kind === 'array') return text.split('\n').map((l) => l.trim()).filter(Boolean);
        if (kind === 'integer' || kind === 'number') return text.trim() === '' ? undefined : Number(text);
        return type.key === 'note' ? text : text.trim() === '' ? undefined : text.trim();
      };
      if (inputs.has('')) return one(inputs.get('')!) ?? '';
      const value: Record<string, unknown> = {};
      for (const [path, input] of inputs) {
        const v = one(input);
        if (v !== undefined && !(Array.isArray(v) && v.length === 0)) value[path.slice(1)] = v;
      }
      return value;
    },
    errors(list) {
      for (const { el } of inputs.values()) el.removeAttribute('aria-invalid');
      errorBox.replaceChildren(...list.map((e) => {
        const target = inputs.get(e.path.replace(/^\/value/, '').replace(/\/\d+$/, ''));
        target?.el.setAttribute('aria-invalid', 'true');
        return h('li', {}, e.message);
      }));
    },
  };
}
