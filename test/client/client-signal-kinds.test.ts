// The client's signal kinds are the catalogue's: the generated file is current, and a kind the
// client does not know (a newer server's) is passed over instead of delivered.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { knownSignal, SIGNAL_RESOURCES } from '../../client/src/index.js';
import type { Signal } from '../../client/src/index.js';
import { SIGNAL_KINDS_FILE, signalKindsSource } from '../../scripts/write-signal-kinds.js';
import { SIGNAL_KINDS } from '../../src/platform/signals/catalogue.js';

describe('client: signal kinds from the catalogue', () => {
  it('client/src/generated/signal-kinds.ts is written from the catalogue (npx tsx scripts/write-signal-kinds.ts)', () => {
    assert.equal(readFileSync(SIGNAL_KINDS_FILE, 'utf8'), signalKindsSource());
    assert.deepEqual(SIGNAL_RESOURCES, Object.fromEntries(Object.entries(SIGNAL_KINDS).map(([kind, { resource }]) => [kind, resource])));
  });

  it('knows the catalogue kinds and passes over others', () => {
    const signal = { id: '1', kind: 'fields.changed', resource: '/me/fields', at: '2026-01-01T00:00:00Z' };
    assert.deepEqual(knownSignal(signal), signal);
    assert.equal(knownSignal({ ...signal, kind: 'weather.changed' }), undefined);
    assert.equal(knownSignal({ ...signal, kind: 'toString' }), undefined, 'not a property of every object');
    assert.equal(knownSignal({ kind: 'fields.changed' }), undefined);
    assert.equal(knownSignal(null), undefined);
  });

  it('narrows the resource by kind', () => {
    const describe = (signal: Signal): string => {
      switch (signal.kind) {
        case 'contact.card.changed': {
          const resource: `/contacts/${string}/card` = signal.resource;
          return resource;
        }
        case 'me.changed': {
          const resource: '/me' = signal.resource;
          return resource;
        }
        default:
          return signal.resource;
      }
    };
    assert.equal(describe({ id: '2', kind: 'contact.card.changed', resource: '/contacts/sub_1/card', at: '' }), '/contacts/sub_1/card');
  });
});
