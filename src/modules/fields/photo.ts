import type { FieldTypeDefinition } from './types.js';

/**
 * A photo on a card (PRODUCT §2): the field names one of the account's photos (POST /me/photos),
 * so a profile exposes it like any field and the audience rule decides who sees it. That the
 * account holds the photo is checked by the field service, which can read; the details (a
 * thumbnail, the sizes, a tag) come from the photo.
 */
export const photoType: FieldTypeDefinition = {
  key: 'photo',
  label: 'Photo',
  description:
    'One of your photos (upload with POST /me/photos, then name it here). Expose different photos on different profiles: ' +
    'a photo is served only to those who see a card showing it. Deleting the photo deletes the fields that show it.',
  multiple: true,
  country: 'none',
  suggestedLabels: ['work', 'personal'],
  valueSchema: {
    type: 'object',
    properties: { photo_id: { type: 'string', pattern: '^pho_[A-Za-z0-9_-]{1,64}$', description: 'The id POST /me/photos answered' } },
    required: ['photo_id'],
    additionalProperties: false,
    examples: [{ photo_id: 'pho_8mVhQ2s1kqYdW7xN3pLc4a' }],
  },
  validate(value) {
    return { ok: true, value: { photo_id: (value as { photo_id: string }).photo_id } };
  },
};
