// The web app's words for refusals (web/src/core/messages.ts): one sentence per box, from the
// code and the pointer, never the validator's or the server's text; the messages the old app
// showed (issue "The web app, rebuilt for people") cannot come back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VidNetworkError, VidProblemError } from '../../client/src/index.js';
import type { Problem } from '../../client/src/index.js';
import { REFUSALS, refusalEntry } from '../../src/platform/refusals.js';
import type { RefusalCode } from '../../src/platform/refusals.js';
import { allSentences, OFFLINE, say, words } from '../../web/src/core/messages.js';

/** What no sentence a person reads may contain: pointers, validator phrases, standards, field names. */
export const NOT_FOR_PEOPLE = /\/[a-z_]+\b|must NOT|must be|must match|anyOf|oneOf|E\.164|\bRFC\b|A-label|ISO 3166|alpha-2|line_type|details\.|smtputf8|\bnull\b|JSON|pointer|\(optional\)/i;

const problem = (code: string, status: number, extra: Partial<Problem> = {}) =>
  new VidProblemError({ type: `urn:vid:problem:${code}`, title: 'T', status, detail: `detail of ${code}: /value must NOT be anyOf`, code, request_id: 'r', ...extra }, new Headers());

describe('web: refusals in words', () => {
  it('no sentence reads like a validator, a standard or an API field', () => {
    for (const sentence of allSentences()) {
      assert.doesNotMatch(sentence, NOT_FOR_PEOPLE, sentence);
      assert.match(sentence, /^[A-Z“‘0-9].*[.!?]$/u, `a sentence: ${sentence}`);
    }
  });

  it('every refusal of the catalogue is said without its detail', () => {
    for (const name of Object.keys(REFUSALS) as RefusalCode[]) {
      const { code, status } = refusalEntry(name);
      const said = say(problem(code, status));
      assert.doesNotMatch(said, NOT_FOR_PEOPLE, `${code}: ${said}`);
      assert.ok(!said.includes('detail of'), `${code} shows the detail`);
    }
  });

  it('each refusal across regions has a sentence of its own, not its status’s', () => {
    const across: RefusalCode[] = ['unknown_region', 'region_unavailable', 'region_signature_required', 'region_signature_invalid', 'region_request_replayed', 'region_subject_mismatch'];
    for (const name of across) {
      const { code, status } = refusalEntry(name);
      assert.notEqual(say(problem(code, status)), say(problem('no_such_code', status)), `${code} falls back on its status`);
    }
    assert.match(say(problem('region_unavailable', 503)), /cannot be reached/);
  });

  it('a display name too long is one sentence next to its box (not three validator lines)', () => {
    const refusal = problem('validation_failed', 400, {
      errors: [
        { path: '/display_name', code: 'maxLength', message: 'must NOT have more than 64 characters' },
        { path: '/display_name', code: 'type', message: 'must be null' },
        { path: '/display_name', code: 'anyOf', message: 'must match a schema in anyOf' },
      ],
    });
    assert.deepEqual(words(refusal, { '/display_name': { name: 'name', maxLength: 64 } }), { message: undefined, boxes: { '/display_name': 'Use at most 64 characters.' } });
  });

  it('a refused country is said once, under the country box', () => {
    const refusal = problem('invalid_country', 400, { errors: [{ path: '/country', code: 'invalid_country', message: 'not an ISO 3166-1 alpha-2 country code' }] });
    const said = words(refusal, { '/value': { name: 'number' }, '/country': { name: 'country' } });
    assert.deepEqual(said, { message: undefined, boxes: { '/country': 'Choose a country.' } });
  });

  it('an address part follows the chosen country, and a box the form lacks is said for the form once', () => {
    const refusal = problem('validation_failed', 400, {
      errors: [
        { path: '/value/postal_code', code: 'postal_code_pattern', message: 'not a valid postcode of United Kingdom, e.g. SW1A 1AA' },
        { path: '/value/street_lines/0', code: 'maxLength', message: 'must NOT have more than 200 characters' },
        { path: '/label', code: 'maxLength', message: 'must NOT have more than 64 characters' },
        { path: '/whatever', code: 'additionalProperties', message: 'must NOT have additional properties' },
      ],
    });
    const said = words(refusal, {
      '/value/postal_code': { name: 'postcode', country: 'United Kingdom', example: 'SW1A 1AA' },
      '/value/street_lines': { name: 'street', maxLength: 200 },
    });
    assert.equal(said.boxes['/value/postal_code'], 'Check the postcode: in United Kingdom it looks like SW1A 1AA.');
    assert.equal(said.boxes['/value/street_lines'], 'Use at most 200 characters.');
    assert.equal(said.message, 'That is too long.');
    for (const sentence of [said.message!, ...Object.values(said.boxes)]) assert.doesNotMatch(sentence, NOT_FOR_PEOPLE);
  });

  it('a network failure says the app is offline and trying again', () => {
    assert.equal(say(new VidNetworkError('GET /me: fetch failed')), OFFLINE);
    assert.equal(OFFLINE, 'You’re offline, trying again.');
  });
});
