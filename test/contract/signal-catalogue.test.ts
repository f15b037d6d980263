// PRODUCT §7: a signal's resource is the path its kind promises (the catalogue that
// docs/events.md is made from). Code emits only through signal(), which reads the path from the
// catalogue; every HTTP suite checks the log it leaves behind (test/helpers/app.ts); this suite
// proves that check and the templates themselves.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SIGNAL_KINDS, resourceOf, resourcePattern } from '../../src/platform/signals/catalogue.js';
import type { SignalKindName } from '../../src/platform/signals/catalogue.js';
import { signal, signalEach } from '../../src/platform/signals/signal.js';
import { accountQueries } from '../../src/platform/store/accounts.js';
import { projectRoot } from '../../src/platform/paths.js';
import type { Store } from '../../src/platform/store/store.js';
import { backends } from '../helpers/backends.js';
import { signalsOffCatalogue } from '../helpers/signal-catalogue.js';

describe('signal catalogue', () => {
  it('fills a template with its values and refuses a missing or unsafe one', () => {
    assert.equal(resourceOf('me.changed'), '/me');
    assert.equal(resourceOf('contact.card.changed', { id: 'sub_abc' }), '/contacts/sub_abc/card');
    assert.throws(() => resourceOf('contact.card.changed', {}), /needs a path segment/);
    assert.throws(() => resourceOf('contact.card.changed', { id: '../me' }), /needs a path segment/);
  });

  it('matches each kind to exactly the paths its template makes', () => {
    for (const kind of Object.keys(SIGNAL_KINDS) as SignalKindName[]) {
      const path = resourceOf(kind, { id: 'sub_x1' } as never);
      assert.match(path, resourcePattern(kind), kind);
    }
    assert.doesNotMatch('/auth/totp', resourcePattern('methods.changed'));
    assert.doesNotMatch('/contacts/a/b/card', resourcePattern('contact.card.changed'));
  });

  it('is the only way code writes the signal log', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts')) {
          const text = readFileSync(path, 'utf8');
          const file = relative(projectRoot, path);
          if (/insertInto\(\s*'events'\s*\)/.test(text) && file !== join('src', 'platform', 'signals', 'log.ts')) offenders.push(file);
          if (/signalLog\)\s*\.append\(|\.log\.append\(/.test(text) && file !== join('src', 'platform', 'signals', 'signal.ts')) offenders.push(file);
        }
      }
    };
    walk(join(projectRoot, 'src'));
    assert.deepEqual(offenders, []);
  });
});

for (const backend of backends) {
  describe(`signal() and the catalogue check [${backend.name}]`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    const accounts: string[] = [];
    before(async () => {
      const database = await backend.open();
      ({ store, cleanup } = database);
      for (let i = 0; i < 3; i++) {
        const id = `acc_signalcatalogue${i}xxxxxxxxx`;
        accounts.push(id);
        await store.use(accountQueries).insert({
          id, username: `sc${i}`, username_canonical: `sc${i}`, username_skeleton: `sc${i}`, username_skeleton_upper: `SC${i}`, user_handle: `h${i}`,
          display_name: null, locale: null, default_country: null, region: 'eu', version: 1, created_at: Date.now(),
          deleted_at: null, purge_at: null, purged_at: null, hold_until: null, locked_at: null, lock_reason: null,
        });
      }
    });
    after(() => cleanup());

    it('writes the catalogue path for one account, for several in one statement, and per account', async () => {
      await store.transaction(async (tx) => {
        await signal(tx, accounts[0]!, 'fields.changed');
        await signal(tx, accounts, 'me.changed');
        await signalEach(tx, accounts.map((accountId, i) => ({ accountId, params: { id: `sub_${i}` } })), 'contact.card.changed');
      });
      const rows = await store.handle.db.selectFrom('events').select(['account_id', 'seq', 'kind', 'resource']).orderBy('account_id').orderBy('seq').execute();
      assert.deepEqual(
        rows.map((r: any) => [r.account_id, Number(r.seq), r.kind, r.resource]),
        [
          [accounts[0], 1, 'fields.changed', '/me/fields'],
          [accounts[0], 2, 'me.changed', '/me'],
          [accounts[0], 3, 'contact.card.changed', '/contacts/sub_0/card'],
          [accounts[1], 1, 'me.changed', '/me'],
          [accounts[1], 2, 'contact.card.changed', '/contacts/sub_1/card'],
          [accounts[2], 1, 'me.changed', '/me'],
          [accounts[2], 2, 'contact.card.changed', '/contacts/sub_2/card'],
        ],
      );
      assert.deepEqual(await signalsOffCatalogue(store), []);
    });

    it('fails when a signal in the log names another resource than its kind promises', async () => {
      await store.handle.db.insertInto('events').values({ account_id: accounts[1]!, seq: 999, kind: 'methods.changed', resource: '/auth/totp', created_at: Date.now() }).execute();
      assert.deepEqual(await signalsOffCatalogue(store), ['methods.changed /auth/totp']);
      await store.handle.db.deleteFrom('events').where('seq', '=', 999).execute();
    });
  });
}
