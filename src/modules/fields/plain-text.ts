import { requiredText } from '../../platform/text.js';
import type { FieldTypeDefinition } from './types.js';

interface PlainTextSpec {
  key: string;
  label: string;
  description: string;
  multiple: boolean;
  max: number;
  multiline?: boolean;
  suggestedLabels?: string[];
  examples: string[];
}

/** A field whose value is one piece of text: cleaned (NFC, trimmed, safe) and length-capped. */
function plainText(spec: PlainTextSpec): FieldTypeDefinition {
  return {
    key: spec.key,
    label: spec.label,
    description: spec.description,
    multiple: spec.multiple,
    country: 'none',
    suggestedLabels: spec.suggestedLabels ?? [],
    valueSchema: { type: 'string', minLength: 1, maxLength: spec.max, examples: spec.examples },
    validate(value) {
      const result = requiredText(value as string, { path: '/value', max: spec.max, multiline: spec.multiline });
      return result.ok ? { ok: true, value: result.text } : { ok: false, errors: [result.error] };
    },
  };
}

export const nicknameType = plainText({
  key: 'nickname',
  label: 'Nickname',
  description: 'A name the person likes to be called by (vCard NICKNAME, RFC 6350 §6.2.3).',
  multiple: true,
  max: 64,
  examples: ['Bob', 'Mimi'],
});

export const jobTitleType = plainText({
  key: 'job_title',
  label: 'Job title',
  description: 'Position or role (vCard TITLE/ROLE).',
  multiple: true,
  max: 100,
  suggestedLabels: ['work'],
  examples: ['Site Reliability Engineer'],
});

export const pronounsType = plainText({
  key: 'pronouns',
  label: 'Pronouns',
  description: 'How to refer to the person, free text as they write it.',
  multiple: false,
  max: 40,
  examples: ['she/her', 'they/them', 'er/ihm'],
});

export const noteType = plainText({
  key: 'note',
  label: 'Note',
  description: 'Free text, several lines allowed (vCard NOTE).',
  multiple: true,
  max: 2000,
  multiline: true,
  examples: ['Prefers calls after 6 pm.'],
});
