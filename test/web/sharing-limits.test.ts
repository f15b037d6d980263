// The sharing screens' boxes take exactly what the server accepts (web/src/ui/sharing-limits.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTACT_BOXES, PROFILE_BOXES } from '../../web/src/ui/sharing-limits.js';
import { PROFILE_LIMITS } from '../../src/modules/profiles/service.js';
import { ANNOTATION_LIMITS } from '../../src/modules/contacts/annotations.js';
import { CONTACT_LIMITS } from '../../src/modules/contacts/subscriptions.js';

describe('web: sharing box lengths are the server’s', () => {
  it('a profile’s name, description and the label it gives a field', () => {
    assert.equal(PROFILE_BOXES.name, PROFILE_LIMITS.nameLength);
    assert.equal(PROFILE_BOXES.description, PROFILE_LIMITS.descriptionLength);
    assert.equal(PROFILE_BOXES.label, PROFILE_LIMITS.labelLength);
  });
  it('a request’s message, a contact’s note and labels', () => {
    assert.equal(CONTACT_BOXES.message, CONTACT_LIMITS.messageLength);
    assert.equal(CONTACT_BOXES.note, ANNOTATION_LIMITS.noteLength);
    assert.equal(CONTACT_BOXES.label, ANNOTATION_LIMITS.labelLength);
    assert.equal(CONTACT_BOXES.labels, ANNOTATION_LIMITS.labels);
  });
});
