// A phone box that formats the number as it is typed (libphonenumber-js AsYouType, with the
// chosen country for numbers typed without +), with the phone keyboard and autofill. The
// formatter is loaded when the box first shows, so the app's first download stays small.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { BoxAttributes } from './form.js';

type AsYouTypeClass = typeof import('./as-you-type.js').AsYouType;
let formatter: Promise<AsYouTypeClass> | undefined;
const loadFormatter = () => (formatter ??= import('./as-you-type.js').then((m) => m.AsYouType));

/** The number, and from the first letter, '#' or ';' on, what names an extension (as typed, spaces before it kept). */
export function splitExtension(text: string): { number: string; extension: string } {
  const at = text.search(/\s*[\p{L}#;]/u);
  return at < 0 ? { number: text, extension: '' } : { number: text.slice(0, at), extension: text.slice(at) };
}

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
    // A space typed last is kept: it may be the one before "ext." (the formatter would drop it).
    if (!AsYouType || !text.trim() || /\s$/.test(text)) return text;
    // An extension ("ext. 42", "x42", "#42") is kept as typed: the formatter would take its
    // digits into the number (the server reads the extension from the words, RFC 3966 ;ext=).
    const { number, extension } = splitExtension(text);
    try {
      return new AsYouType((country || undefined) as never).input(number) + extension;
    } catch {
      return text;
    }
  };
  // What was typed before the formatter arrived (a slow network, a busy phone) is formatted once
  // it does, unless the caret is inside the number: the box reads the same however fast it loaded.
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const input = box.current;
    if (!AsYouType || !input || !value) return;
    if (document.activeElement === input && input.selectionStart !== input.value.length) return;
    const next = format(value);
    if (next !== value) onValue(next);
  }, [AsYouType]);
  return (
    <input {...(rest as object)} ref={box} type="tel" inputMode="tel" autocomplete="tel" value={value}
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
