import { domainToASCII, domainToUnicode } from 'node:url';
import { invalid } from './types.js';
import type { FieldTypeDefinition } from './types.js';

// RFC 5322 §3.2.3 atext, extended by RFC 6531 §3.3 with non-ASCII characters; of those we take
// letters, marks and digits only, so no look-alike punctuation or invisible characters get in.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[\\p{L}\\p{M}\\p{N}]";
const DOT_ATOM = new RegExp(`^(?:${ATEXT})+(?:\\.(?:${ATEXT})+)*$`, 'u');
// RFC 1035 §2.3.1 / RFC 5890: letters, digits, hyphens; no hyphen at either end.
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

/** The domain's A-label (ASCII) form if it is a usable host name, else undefined. */
export function asciiDomain(domain: string): string | undefined {
  // UTS #46 processing (case folding, IDNA 2008 mapping, Punycode, RFC 3492); '' when invalid.
  const ascii = domainToASCII(domain);
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LDH_LABEL.test(label))) return undefined;
  // RFC 3696 §2: a top-level domain is never all-numeric.
  if (/^\d+$/.test(labels[labels.length - 1] as string)) return undefined;
  return ascii;
}

/**
 * E-mail addresses (RFC 5321 mailbox, with RFC 6531 internationalised local parts and IDNA
 * domains). Quoted local parts and address literals are refused: real mailboxes use neither,
 * and both are favourite tricks for smuggling text past filters.
 */
export const emailType: FieldTypeDefinition = {
  key: 'email',
  label: 'E-mail',
  description:
    'An e-mail address. Internationalised domains (IDN) and local parts (RFC 6531) are accepted; the domain is stored ' +
    'lower-case in Unicode form, the local part as typed; details.ascii gives the A-label form when the local part is ASCII.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['home', 'work'],
  valueSchema: { type: 'string', minLength: 3, maxLength: 320, examples: ['ada@example.com', 'josé@bücher.example'] },
  validate(value) {
    const text = (value as string).normalize('NFC').trim();
    const at = text.lastIndexOf('@');
    if (at < 0) return invalid('/value', 'email_missing_at', 'an e-mail address has the form name@domain');
    const local = text.slice(0, at);
    const domain = text.slice(at + 1);
    if (!local || !DOT_ATOM.test(local)) {
      return invalid('/value', 'email_local_part_invalid', 'the part before @ may hold letters, digits and !#$%&\'*+/=?^_`{|}~- with single dots between them');
    }
    // RFC 5321 §4.5.3.1.1: a local part has at most 64 octets.
    if (utf8Length(local) > 64) return invalid('/value', 'email_local_part_too_long', 'the part before @ is longer than 64 bytes');
    const ascii = domain.startsWith('[') ? undefined : asciiDomain(domain);
    if (!ascii) return invalid('/value', 'email_domain_invalid', 'the part after @ is not a valid domain name');
    const unicode = domainToUnicode(ascii);
    const normalized = `${local}@${unicode}`;
    // RFC 5321 §4.5.3.1.3 (path of 256 octets less the angle brackets; RFC 3696 erratum 1690).
    if (utf8Length(`${local}@${ascii}`) > 254) return invalid('/value', 'email_too_long', 'an e-mail address has at most 254 bytes');
    const asciiLocal = /^[\x21-\x7e]+$/.test(local);
    return {
      ok: true,
      value: normalized,
      details: asciiLocal ? { ascii: `${local}@${ascii}` } : { smtputf8: true },
    };
  },
};
