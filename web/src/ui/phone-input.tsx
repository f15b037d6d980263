// A phone box that formats the number as it is typed (libphonenumber-js AsYouType, with the
// chosen country for numbers typed without +), with the phone keyboard and autofill. The
// formatter is loaded when the box first shows, so the app's first download stays small.
import { useEffect, useState } from 'preact/hooks';
import type { BoxAttributes } from './form.js';

type AsYouTypeClass = typeof import('./as-you-type.js').AsYouType;
let formatter: Promise<AsYouTypeClass> | undefined;
const loadFormatter = () => (formatter ??= import('./as-you-type.js').then((m) => m.AsYouType));

export function PhoneInput({ country, value, onValue, ...rest }: BoxAttributes & { id: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' } & {
  country: string;
  value: string;
  onValue: (value: string) => void;
}) {
  const [AsYouType, setAsYouType] = useState<AsYouTypeClass | undefined>(undefined);
  useEffect(() => {
    void loadFormatter().then((loaded) => setAsYouType(() => loaded)).catch(() => undefined);
  }, []);
  const format = (text: string): string => {
    if (!AsYouType || !text.trim()) return text;
    try {
      return new AsYouType((country || undefined) as never).input(text);
    } catch {
      return text;
    }
  };
  return (
    <input {...(rest as object)} type="tel" inputMode="tel" autocomplete="tel" value={value}
      onInput={(e) => {
        const box = e.target as HTMLInputElement;
        // Formatting moves characters: only while typing at the end, never under the caret.
        const atEnd = box.selectionStart === box.value.length;
        const deleting = (e as InputEvent).inputType?.startsWith('delete');
        const next = atEnd && !deleting ? format(box.value) : box.value;
        if (next !== box.value) box.value = next;
        onValue(next);
      }} />
  );
}
