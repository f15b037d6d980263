// Every fast path (a statement declared with platform/store/statement.ts, or a hot lookup built on
// them) against its plain Kysely twin, on random data, on both backends: each twin is the rule
// written the plain way (a query built per call, the conditions checked in JavaScript where that
// is plainer), and each case compares what the two answer and what they leave in the tables.
// A fast statement changed alone (a condition dropped, `>` for `>=`, a parameter in the wrong
// place) makes its twin disagree on some world fast-check finds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { accountByCanonical, accountById } from '../../src/platform/store/accounts.js';
import type { AccountRecord } from '../../src/platform/store/accounts.js';
import type { Store } from '../../src/platform/store/store.js';
import { concerningStatements } from '../../src/modules/card-changes/statements.js';
import type { StrategyName } from '../../src/modules/card-changes/statements.js';
import { contactAccessStatement, contactCardStatement, contactCardTagStatement, subscriptionQueries } from '../../src/modules/contacts/queries.js';
import { ownCard, ownCardTag, publicCardByName, publicCardOfAccount } from '../../src/modules/profiles/statements.js';
import { authLookupQueries, renewalQueries } from '../../src/modules/sessions/queries.js';
import type { SessionRecord } from '../../src/modules/sessions/queries.js';
import { sessionQueries } from '../../src/modules/sessions/queries.js';
import { accountLock, insertRefreshToken, insertSession } from '../../src/modules/sessions/statements.js';
import type { RenewalInput, SessionOpening } from '../../src/modules/sessions/statements.js';
import { passkeyWithOwner, recordSignInUse } from '../../src/modules/methods/statements.js';
import { passkeyQueries } from '../../src/modules/methods/queries.js';
import { insertCeremony, takeCeremony } from '../../src/platform/store/ceremonies.js';
import type { CeremonyRecord } from '../../src/platform/store/ceremonies.js';
import { rememberJtis } from '../../src/platform/store/dpop-jtis.js';
import { appendOne } from '../../src/platform/signals/log.js';
import { backends } from '../helpers/backends.js';

const NOW = 1_800_000_000_000;
const RUNS = Number(process.env.VID_FAST_PATH_RUNS ?? 40);
const at = fc.constantFrom(NOW - 1000, NOW, NOW + 1000);
const maybeAt = fc.option(at, { nil: null });

const ACCOUNTS = ['acc_a', 'acc_b', 'acc_c'];
const account = (id: string, state: { deleted_at: number | null; locked_at: number | null }): AccountRecord => ({
  id,
  username: `${id}_name`,
  username_canonical: `${id}_name`,
  username_skeleton: `${id}_skeleton`,
  username_skeleton_upper: null,
  user_handle: `${id}_handle`,
  display_name: null,
  locale: null,
  default_country: null,
  region: 'eu',
  version: 1,
  created_at: NOW - 10_000,
  deleted_at: state.deleted_at,
  purge_at: null,
  purged_at: null,
  hold_until: null,
  locked_at: state.locked_at,
  lock_reason: state.locked_at === null ? null : 'test',
});
const accountStates = fc.tuple(...ACCOUNTS.map(() => fc.record({ deleted_at: maybeAt, locked_at: maybeAt })));

/** Mostly null: a world where most tokens renew, and each condition still fails now and then. */
const mostlyNull = fc.constantFrom(null, null, null, NOW - 1000);
/**
 * Sessions (each with one or two refresh tokens) over the accounts: the renewal's and the
 * lookup's world. Times sit at, just before and just after the moment the renewal is asked at,
 * so every boundary (`>` against `>=`) is met; the session's end is often later than the new
 * tokens', so the cap at it is met both ways.
 */
const sessionWorld = fc.array(
  fc.record({
    account: fc.constantFrom(...ACCOUNTS),
    jkt: fc.constantFrom('jkt-a', 'jkt-a', 'jkt-b'),
    trusted: fc.constantFrom(0, 1),
    revoked_at: mostlyNull,
    access_expires_at: at,
    refresh_expires_at: fc.constantFrom(NOW - 1000, NOW, NOW + 1000, NOW + 2000, NOW + 90_000),
    expires_at: fc.constantFrom(NOW, NOW + 1000, NOW + 5000, NOW + 90_000),
    withAccessHash: fc.boolean(),
    tokens: fc.array(mostlyNull, { minLength: 1, maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 4 },
);
type SessionWorld = typeof sessionWorld extends fc.Arbitrary<infer T> ? T : never;

const sessionRow = (s: SessionWorld[number], i: number): SessionRecord => ({
  id: `ses_${i}`,
  account_id: s.account,
  jkt: s.jkt,
  trusted: s.trusted,
  access_hash: s.withAccessHash ? `ah_${i}` : null,
  access_expires_at: s.access_expires_at,
  refresh_expires_at: s.refresh_expires_at,
  expires_at: s.expires_at,
  created_at: NOW - 5000,
  last_seen_at: NOW - 5000,
  revoked_at: s.revoked_at,
  user_agent: 'test',
  ip: '192.0.2.1',
  device_label: 'test',
  location: null,
  passkey_id: null,
});

for (const backend of backends) {
  describe(`fast paths against their plain twins [${backend.name}]`, { skip: backend.skip }, () => {
    let store: Store;
    let db: Kysely<any>;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await backend.open());
      db = store.handle.db;
    });
    after(() => cleanup());

    async function clear(): Promise<void> {
      for (const table of ['refresh_tokens', 'sessions', 'passkeys', 'events', 'ceremonies', 'subscriptions', 'profiles', 'accounts', 'card_change_log']) await db.deleteFrom(table).execute();
      await db.updateTable('card_change_log_head').set({ seq: 0 }).execute();
    }
    async function seedAccounts(states: Array<{ deleted_at: number | null; locked_at: number | null }>): Promise<void> {
      await db.insertInto('accounts').values(ACCOUNTS.map((id, i) => account(id, states[i]!))).execute();
    }
    async function seedSessions(world: SessionWorld): Promise<void> {
      for (const [i, s] of world.entries()) {
        await db.insertInto('sessions').values(sessionRow(s, i)).execute();
        for (const [j, used_at] of s.tokens.entries()) {
          await db.insertInto('refresh_tokens').values({ hash: `rt_${i}_${j}`, session_id: `ses_${i}`, created_at: NOW - 5000, used_at }).execute();
        }
      }
    }
    async function sessionTables(): Promise<unknown> {
      return {
        sessions: await db.selectFrom('sessions').selectAll().orderBy('id').execute(),
        refresh_tokens: await db.selectFrom('refresh_tokens').selectAll().orderBy('hash').execute(),
      };
    }

    it('the renewal (renewalQueries: one statement on PostgreSQL, three on SQLite) renews exactly when the plain rule says, and writes what it writes', async () => {
      const renewal = renewalQueries(store.handle);
      /** The plain twin: read the token and its session, check RFC 9700 §4.14.2's conditions, write the three steps. */
      const plainRenewal = (input: RenewalInput) =>
        db.transaction().execute(async (tx) => {
          const token = await tx
            .selectFrom('refresh_tokens')
            .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
            .select(['refresh_tokens.used_at', 'sessions.id', 'sessions.trusted', 'sessions.jkt', 'sessions.revoked_at', 'sessions.refresh_expires_at', 'sessions.expires_at'])
            .where('refresh_tokens.hash', '=', input.refreshHash)
            .executeTakeFirst();
          if (!token || token.used_at !== null || token.revoked_at !== null || token.jkt !== input.jkt) return undefined;
          if (token.refresh_expires_at <= input.now || token.expires_at <= input.now) return undefined;
          await tx.updateTable('refresh_tokens').set({ used_at: input.now }).where('hash', '=', input.refreshHash).execute();
          const rotated = {
            access_hash: input.accessHash,
            access_expires_at: Math.min(input.accessExpiresAt, token.expires_at),
            refresh_expires_at: Math.min(input.refreshExpiresAt, token.expires_at),
            last_seen_at: input.now,
          };
          await tx.updateTable('sessions').set(rotated).where('id', '=', token.id).execute();
          await tx.insertInto('refresh_tokens').values({ hash: input.newRefreshHash, session_id: token.id, created_at: input.now, used_at: null }).execute();
          return { id: token.id, trusted: token.trusted, access_expires_at: rotated.access_expires_at, refresh_expires_at: rotated.refresh_expires_at };
        });
      await fc.assert(
        fc.asyncProperty(sessionWorld, fc.constantFrom('jkt-a', 'jkt-a', 'jkt-b'), at, fc.constantFrom(NOW + 500, NOW + 60_000), async (world, jkt, now, expiresAt) => {
          // Every token of the world presented in turn (and an unknown one), each renewal seeing what the ones before wrote.
          const hashes = [...world.flatMap((s, i) => s.tokens.map((_, j) => `rt_${i}_${j}`)), 'rt_unknown'];
          const run = async (renew: (input: RenewalInput) => Promise<unknown>) => {
            await clear();
            await seedAccounts(ACCOUNTS.map(() => ({ deleted_at: null, locked_at: null })));
            await seedSessions(world);
            const answers = [];
            for (const [k, refreshHash] of hashes.entries()) {
              answers.push(
                await renew({ refreshHash, jkt, now, accessHash: `ah_new_${k}`, accessExpiresAt: expiresAt, newRefreshHash: `rt_new_${k}`, refreshExpiresAt: expiresAt + 1000 }),
              );
            }
            return { answers, tables: await sessionTables() };
          };
          assert.deepEqual(await run(renewal.atOnce), await run(plainRenewal));
        }),
        { numRuns: RUNS },
      );
    });

    it('the authentication lookup (authLookupQueries: one statement on SQLite, a coalesced batch on PostgreSQL) finds what the plain join finds', async () => {
      const lookup = authLookupQueries(store.handle);
      const plainLookup = async (accessHash: string) => {
        const session = await db.selectFrom('sessions').selectAll().where('access_hash', '=', accessHash).where('revoked_at', 'is', null).executeTakeFirst();
        if (!session) return undefined;
        const owner = await db.selectFrom('accounts').selectAll().where('id', '=', session.account_id).executeTakeFirstOrThrow();
        const { id, jkt, trusted, access_expires_at, expires_at, last_seen_at } = session;
        return { session_id: id, jkt, trusted, access_expires_at, expires_at, last_seen_at, account: owner };
      };
      await fc.assert(
        fc.asyncProperty(accountStates, sessionWorld, async (states, world) => {
          await clear();
          await seedAccounts(states);
          await seedSessions(world);
          const hashes = [...world.map((_, i) => `ah_${i}`), 'ah_unknown'];
          // All at once: on PostgreSQL they share one batch.
          assert.deepEqual(await Promise.all(hashes.map(lookup.find)), await Promise.all(hashes.map(plainLookup)));
        }),
        { numRuns: RUNS },
      );
    });

    it('the account reads, the lock check and the session opening\'s inserts match their plain twins', async () => {
      await fc.assert(
        fc.asyncProperty(accountStates, sessionWorld, fc.constantFrom(...ACCOUNTS, 'acc_none'), async (states, world, id) => {
          await clear();
          await seedAccounts(states);
          const plain = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
          assert.deepEqual(await accountById.first(db, { id }), plain);
          assert.deepEqual(await accountByCanonical.first(db, { canonical: `${id}_name` }), plain);
          const locked = await db.transaction().execute((tx) => accountLock.first(tx, { accountId: id }));
          assert.deepEqual(locked, plain && { locked_at: plain.locked_at });
          // Inserted in a transaction by the statements, then by plain Kysely: the same rows.
          const rows = world.map(sessionRow).map((row) => ({ ...row, account_id: ACCOUNTS[0]! }));
          const written = async (insert: (tx: Kysely<any>, row: SessionRecord) => Promise<void>) => {
            await db.deleteFrom('sessions').execute();
            await db.transaction().execute(async (tx) => {
              for (const row of rows) await insert(tx, row);
            });
            return sessionTables();
          };
          const fast = await written(async (tx, row) => {
            await insertSession.all(tx, row);
            await insertRefreshToken.all(tx, { hash: `rt_${row.id}`, sessionId: row.id, at: row.created_at });
          });
          const twin = await written(async (tx, row) => {
            await tx.insertInto('sessions').values(row).execute();
            await tx.insertInto('refresh_tokens').values({ hash: `rt_${row.id}`, session_id: row.id, created_at: row.created_at, used_at: null }).execute();
          });
          assert.deepEqual(fast, twin);
        }),
        { numRuns: RUNS },
      );
    });

    it('a sign-in\'s statements (the ceremony\'s insert and take, the passkey with its owner, the counter\'s swap) match their plain twins', async () => {
      const ceremony = fc.record({
        id: fc.constantFrom('cer_a', 'cer_b', 'cer_c'),
        kind: fc.constantFrom('login', 'register'),
        challenge: fc.constantFrom('ch_1', 'ch_2'),
        username: fc.option(fc.constant('ada'), { nil: null }),
        user_handle: fc.option(fc.constant('handle'), { nil: null }),
        account_id: fc.option(fc.constantFrom(...ACCOUNTS), { nil: null }),
        session_id: fc.option(fc.constant('ses_0'), { nil: null }),
        expires_at: at,
      });
      const passkey = fc.record({ account: fc.constantFrom(...ACCOUNTS), counter: fc.constantFrom(0, 1, 7), backed_up: fc.constantFrom(0, 1) });
      const use = fc.record({ key: fc.nat(3), expectedCounter: fc.constantFrom(0, 1, 7), counter: fc.constantFrom(0, 2, 8), backed_up: fc.constantFrom(0, 1), at, dpop_jkt: fc.constantFrom('jkt-a', 'jkt-b') });
      await fc.assert(
        fc.asyncProperty(
          accountStates,
          fc.uniqueArray(ceremony, { selector: (c) => c.id, maxLength: 3 }),
          fc.constantFrom('cer_a', 'cer_b', 'cer_none'),
          fc.constantFrom('login', 'register'),
          fc.array(passkey, { maxLength: 3 }),
          fc.array(use, { maxLength: 3 }),
          async (states, ceremonies, takeId, takeKind, passkeys, uses) => {
            const run = async (steps: {
              insert: (c: CeremonyRecord) => Promise<unknown>;
              take: (id: string, kind: string) => Promise<unknown>;
              withOwner: (credentialId: string) => Promise<unknown>;
              swap: (tx: Kysely<any>, u: (typeof uses)[number] & { id: string }) => Promise<boolean>;
            }) => {
              await clear();
              await seedAccounts(states);
              for (const c of ceremonies) await steps.insert(c);
              // Taken twice: the second take finds nothing (a challenge is answered once).
              const taken = [await steps.take(takeId, takeKind), await steps.take(takeId, takeKind)];
              for (const [i, k] of passkeys.entries()) {
                await db.insertInto('passkeys').values({
                  id: `pk_${i}`, account_id: k.account, credential_id: `cred_${i}`, public_key: `key_${i}`, counter: k.counter, transports: '[]',
                  backup_eligible: 1, backed_up: k.backed_up, aaguid: 'aaguid', name: `passkey ${i}`, dpop_jkt: 'jkt-0', version: 1, created_at: NOW, last_used_at: null, flagged_at: null,
                }).execute();
              }
              const found = [];
              for (const i of [0, 1, 2, 3]) found.push(await steps.withOwner(`cred_${i}`));
              const swapped = [];
              for (const u of uses) swapped.push(await db.transaction().execute((tx) => steps.swap(tx, { ...u, id: `pk_${u.key}` })));
              return {
                taken, found, swapped,
                ceremonies: await db.selectFrom('ceremonies').selectAll().orderBy('id').execute(),
                passkeys: await db.selectFrom('passkeys').selectAll().orderBy('id').execute(),
              };
            };
            const fast = await run({
              insert: (c) => insertCeremony.all(db, c),
              take: (id, kind) => takeCeremony.first(db, { id, kind }),
              withOwner: (credentialId) => passkeyWithOwner.first(db, { credentialId }),
              swap: async (tx, u) => (await recordSignInUse.all(tx, u)).length === 1,
            });
            const twin = await run({
              insert: (c) => db.insertInto('ceremonies').values(c).execute(),
              take: (id, kind) => db.deleteFrom('ceremonies').where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst(),
              withOwner: async (credentialId) => {
                const row = await db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
                const owner = row && (await db.selectFrom('accounts').selectAll().where('id', '=', row.account_id).executeTakeFirst());
                return row && owner ? { ...row, owner_user_handle: owner.user_handle } : undefined;
              },
              swap: async (tx, u) => {
                const result = await tx.updateTable('passkeys').set({ counter: u.counter, backed_up: u.backed_up, last_used_at: u.at, dpop_jkt: u.dpop_jkt })
                  .where('id', '=', u.id).where('counter', '=', u.expectedCounter).executeTakeFirst();
                return Number(result.numUpdatedRows) === 1;
              },
            });
            assert.deepEqual(fast, twin);
          },
        ),
        { numRuns: RUNS },
      );
    });

    it('a sign-in\'s first steps (passkeyQueries.takeWithPasskey: one statement on PostgreSQL) take and read what the plain take and read do', async () => {
      const ceremony = fc.record({ id: fc.constantFrom('cer_a', 'cer_b'), kind: fc.constantFrom('login', 'register'), account_id: fc.option(fc.constantFrom(...ACCOUNTS), { nil: null }), expires_at: at });
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(ceremony, { selector: (c) => c.id, maxLength: 2 }),
          fc.array(fc.constantFrom(...ACCOUNTS), { maxLength: 3 }),
          fc.array(fc.tuple(fc.constantFrom('cer_a', 'cer_b', 'cer_none'), fc.constantFrom('login', 'register'), fc.constantFrom('cred_0', 'cred_1', 'cred_2', 'cred_none')), { minLength: 1, maxLength: 3 }),
          async (ceremonies, owners, takes) => {
            const run = async (take: (id: string, kind: string, credentialId: string) => Promise<unknown>) => {
              await clear();
              await seedAccounts(ACCOUNTS.map(() => ({ deleted_at: null, locked_at: null })));
              for (const c of ceremonies) await db.insertInto('ceremonies').values({ ...c, challenge: `ch_${c.id}`, username: null, user_handle: 'h', session_id: null }).execute();
              for (const [i, owner] of owners.entries()) {
                await db.insertInto('passkeys').values({
                  id: `pk_${i}`, account_id: owner, credential_id: `cred_${i}`, public_key: `key_${i}`, counter: i, transports: '["usb"]',
                  backup_eligible: 1, backed_up: 0, aaguid: 'aaguid', name: `passkey ${i}`, dpop_jkt: 'jkt-0', version: 1, created_at: NOW, last_used_at: null, flagged_at: null,
                }).execute();
              }
              const answers = [];
              for (const [id, kind, credentialId] of takes) answers.push(await take(id, kind, credentialId));
              return { answers, left: await db.selectFrom('ceremonies').selectAll().orderBy('id').execute() };
            };
            const queries = passkeyQueries(db, store.dialect);
            const fast = await run((id, kind, credentialId) => queries.takeWithPasskey(id, kind, credentialId));
            const twin = await run(async (id, kind, credentialId) => {
              const taken = await db.deleteFrom('ceremonies').where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst();
              if (!taken) return { ceremony: undefined, passkey: undefined };
              const row = await db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
              const owner = row && (await db.selectFrom('accounts').selectAll().where('id', '=', row.account_id).executeTakeFirst());
              return { ceremony: taken, passkey: row && owner ? { ...row, owner_user_handle: owner.user_handle } : undefined };
            });
            assert.deepEqual(fast, twin);
          },
        ),
        { numRuns: RUNS },
      );
    });

    it('a session\'s opening (one statement on PostgreSQL, holding the account\'s row) and a one-account signal append match their plain twins', async () => {
      await fc.assert(
        fc.asyncProperty(accountStates, fc.constantFrom(...ACCOUNTS, 'acc_none'), fc.array(fc.constantFrom(...ACCOUNTS), { maxLength: 4 }), fc.array(fc.constantFrom(...ACCOUNTS), { minLength: 1, maxLength: 4 }), async (states, accountId, earlier, appends) => {
          const opening: SessionOpening = { ...sessionRow({ account: ACCOUNTS[0]!, jkt: 'jkt-a', trusted: 1, revoked_at: null, access_expires_at: NOW, refresh_expires_at: NOW + 1000, expires_at: NOW + 5000, withAccessHash: true, tokens: [] }, 7), account_id: accountId, refreshHash: 'rt_open' };
          const run = async (open: (tx: Kysely<any>) => Promise<number | null>, append: (tx: Kysely<any>, id: string, k: number) => Promise<unknown>) => {
            await clear();
            await seedAccounts(states);
            // Signals already in the log: each append numbers after the account's newest.
            for (const [k, id] of earlier.entries()) await db.insertInto('events').values({ account_id: id, seq: k + 1, kind: 'sessions.changed', resource: '/sessions', created_at: NOW }).execute();
            let answer: unknown;
            try {
              answer = await db.transaction().execute((tx) => open(tx));
            } catch {
              answer = 'refused by the database';
            }
            const appended = await db.transaction().execute(async (tx) => {
              const rows = [];
              for (const [k, id] of appends.entries()) rows.push(await append(tx, id, k));
              return rows;
            });
            return { answer, appended, tables: await sessionTables(), events: await db.selectFrom('events').selectAll().orderBy(['account_id', 'seq']).execute() };
          };
          const fast = await run(
            (tx) => sessionQueries(tx, store.dialect).openUnlessLocked(opening),
            async (tx, id, k) => {
              const row = (await appendOne.first(tx, { accountId: id, kind: 'sessions.changed', resource: `/r${k}`, at: NOW + k }))!;
              return { account_id: row.account_id, seq: Number(row.seq), resource: row.resource };
            },
          );
          const twin = await run(
            async (tx) => {
              const lockedAt = (await tx.selectFrom('accounts').select('locked_at').where('id', '=', accountId).executeTakeFirst())?.locked_at ?? null;
              if (lockedAt !== null) return lockedAt;
              const { refreshHash, ...session } = opening;
              await tx.insertInto('sessions').values(session).execute();
              await tx.insertInto('refresh_tokens').values({ hash: refreshHash, session_id: session.id, created_at: session.created_at, used_at: null }).execute();
              return null;
            },
            async (tx, id, k) => {
              const newest = await tx.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).where('account_id', '=', id).executeTakeFirst();
              const seq = Number(newest?.seq ?? 0) + 1;
              await tx.insertInto('events').values({ account_id: id, seq, kind: 'sessions.changed', resource: `/r${k}`, created_at: NOW + k }).execute();
              return { account_id: id, seq, resource: `/r${k}` };
            },
          );
          assert.deepEqual(fast, twin);
        }),
        { numRuns: RUNS },
      );
    });

    // PostgreSQL only: SQLite has no named statements.
    if (backend.name === 'postgres') it('inside a transaction, a statement runs as its named statement on the transaction\'s connection (PostgreSQL)', async () => {
      await clear();
      await seedAccounts(ACCOUNTS.map(() => ({ deleted_at: null, locked_at: null })));
      const prepared = await db.transaction().execute(async (tx) => {
        await accountLock.first(tx, { accountId: ACCOUNTS[0]! });
        return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(tx)).rows.map((row) => row.name);
      });
      assert.ok(prepared.some((name) => name.startsWith('vid account lock check ')), `prepared on that connection: ${prepared.join(', ')}`);
    });

    // PostgreSQL only: SQLite keeps its jtis in a side file.
    if (backend.name === 'postgres') it('the DPoP jti batch (PostgreSQL) remembers what one insert per jti remembers', async () => {
      const jti = fc.constantFrom('j1', 'j2', 'j3', 'j4');
      await fc.assert(
        fc.asyncProperty(fc.array(jti, { maxLength: 3 }), fc.array(fc.tuple(jti, at), { minLength: 1, maxLength: 5 }), async (known, batch) => {
          const run = async (remember: () => Promise<unknown>) => {
            await db.deleteFrom('dpop_jtis').execute();
            for (const hash of new Set(known)) await db.insertInto('dpop_jtis').values({ jti_hash: hash, expires_at: NOW }).execute();
            const fresh = await remember();
            return { fresh, rows: await db.selectFrom('dpop_jtis').selectAll().orderBy('jti_hash').execute() };
          };
          const fast = await run(async () => (await rememberJtis.all(db, { hashes: batch.map(([h]) => h), expiries: batch.map(([, e]) => e) })).map((r) => r.jti_hash).sort());
          const twin = await run(async () => {
            const fresh = [];
            for (const [hash, expires_at] of batch) {
              const inserted = await db.insertInto('dpop_jtis').values({ jti_hash: hash, expires_at }).onConflict((oc) => oc.doNothing()).returning('jti_hash').executeTakeFirst();
              if (inserted) fresh.push(inserted.jti_hash);
            }
            return fresh.sort();
          });
          assert.deepEqual(fast, twin);
        }),
        { numRuns: RUNS },
      );
    });

    it('the card reads (own card, the public card by name and by owner, a contact\'s card) match their plain twins', async () => {
      const profile = fc.record({ account: fc.constantFrom(...ACCOUNTS), public: fc.constantFrom(0, 1) });
      const subscription = fc.record({
        owner: fc.constantFrom(...ACCOUNTS),
        subscriber: fc.constantFrom(...ACCOUNTS),
        profile: fc.option(fc.nat(3), { nil: null }),
        status: fc.constantFrom('active', 'pending', 'denied', 'revoked'),
        hidden_at: maybeAt,
      });
      await fc.assert(
        fc.asyncProperty(accountStates, fc.array(profile, { maxLength: 4 }), fc.array(subscription, { maxLength: 4 }), async (states, profiles, subscriptions) => {
          await clear();
          await seedAccounts(states);
          // One public profile per account at most (the schema's partial unique index).
          const seenPublic = new Set<string>();
          const profileRows = profiles.map((p, i) => {
            const isPublic = p.public === 1 && !seenPublic.has(p.account);
            if (isPublic) seenPublic.add(p.account);
            return {
              id: `prf_${i}`, account_id: p.account, name: `p${i}`, name_key: `p${i}`, description: null, public: isPublic ? 1 : 0, version: 1,
              created_at: NOW, updated_at: NOW, card_json: `{"n":${i}}`, card_hash: `h${i}`, card_etag: `"e${i}"`, card_updated_at: NOW + i,
            };
          });
          if (profileRows.length) await db.insertInto('profiles').values(profileRows).execute();
          const subscriptionRows = subscriptions.map((s, i) => ({
            id: `sub_${i}`, owner_id: s.owner, subscriber_id: s.subscriber,
            profile_id: s.profile !== null && profileRows[s.profile]?.account_id === s.owner ? profileRows[s.profile]!.id : null,
            status: s.status, message: null, share_link_id: null, share_link_label: null, suggested_profile_id: null, version: 1,
            created_at: NOW + i, updated_at: NOW + i, card_since: NOW, card_changes: '[]', hidden_at: s.hidden_at, silent_changes: 0,
          }));
          for (const row of subscriptionRows) {
            try {
              await db.insertInto('subscriptions').values(row).execute();
            } catch {
              // A second live subscription of one pair: the schema refuses it, the world goes without.
            }
          }
          const accounts = await db.selectFrom('accounts').selectAll().execute();
          const byId = new Map(accounts.map((a) => [a.id, a]));
          const storedProfiles = await db.selectFrom('profiles').selectAll().execute();
          for (const id of [...ACCOUNTS, 'acc_none']) {
            const owner = byId.get(id);
            const publicProfile = owner && owner.deleted_at === null && owner.locked_at === null ? storedProfiles.find((p) => p.account_id === id && p.public === 1) : undefined;
            assert.deepEqual(
              await publicCardByName.first(db, { canonical: `${id}_name` }),
              publicProfile && { account_id: id, card_json: publicProfile.card_json, card_etag: publicProfile.card_etag },
            );
            assert.deepEqual(await publicCardOfAccount.first(db, { accountId: id }), publicProfile && { card_json: publicProfile.card_json });
            for (const p of [...storedProfiles, { id: 'prf_none', account_id: id, card_json: '', card_etag: '' }]) {
              const own = p.account_id === id && p.id !== 'prf_none' ? p : undefined;
              assert.deepEqual(await ownCard.first(db, { accountId: id, id: p.id }), own && { card_json: own.card_json, card_etag: own.card_etag });
              assert.deepEqual(await ownCardTag.first(db, { accountId: id, id: p.id }), own && { card_etag: own.card_etag });
            }
          }
          // A contact: the subscriber's own subscription, with the audience rule (contacts' queries, PRODUCT §4) read plainly.
          const stored = await db.selectFrom('subscriptions').selectAll().execute();
          for (const subscriberId of ACCOUNTS) {
            for (const id of [...stored.map((s) => s.id), 'sub_none']) {
              const s = stored.find((row) => row.id === id && row.subscriber_id === subscriberId);
              const owner = s && byId.get(s.owner_id)!;
              const access = !s || !owner ? undefined
                : s.hidden_at !== null ? 'hidden'
                : s.status !== 'active' ? 'not_active'
                : owner.deleted_at !== null ? 'owner_deleted'
                : owner.locked_at !== null ? 'owner_locked'
                : 'shown';
              const shows = s && storedProfiles.find((p) => p.id === s.profile_id);
              const tag = s && {
                owner_id: s.owner_id, access, card_since: s.card_since, card_changes: s.card_changes,
                card_etag: shows?.card_etag ?? null, card_updated_at: shows?.card_updated_at ?? null,
              };
              assert.deepEqual(await contactAccessStatement.first(db, { subscriberId, id }), s && { owner_id: s.owner_id, access });
              assert.deepEqual(await contactCardTagStatement.first(db, { subscriberId, id }), tag);
              assert.deepEqual(await contactCardStatement.first(db, { subscriberId, id }), tag && { ...tag, card_json: shows?.card_json ?? null });
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
    it('the card-change log\'s one question (each contact\'s newest edit, each owner\'s newest row, the newest row) answers as its model, by the stretch and by the cards', async () => {
      const concerning = concerningStatements(store.handle, {
        receivedContact: (subscriberId) => (owner, profile) => subscriptionQueries(db).receivedContact(subscriberId, owner, profile),
        receivedCards: (subscriberId) => subscriptionQueries(db).receivedCards(subscriberId),
      });
      const PROFILES = ['prf_a0', 'prf_a1', 'prf_b0', 'prf_c0'];
      const ownerOf = (profile: string) => `acc_${profile[4]}`;
      const subscription = fc.record({
        subscriber: fc.constantFrom(...ACCOUNTS),
        profile: fc.constantFrom(...PROFILES),
        status: fc.constantFrom('active', 'active', 'pending', 'revoked'),
      });
      // A row names a card (an edit, or who receives it changed) or one subscriber's view of an owner.
      const logRow = fc.oneof(
        fc.record({ profile: fc.constantFrom(...PROFILES), edited: fc.constantFrom(0, 1, 1), at: fc.nat(4) }),
        fc.record({ owner: fc.constantFrom(...ACCOUNTS), subscriber: fc.constantFrom(...ACCOUNTS), at: fc.nat(4) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(subscription, { maxLength: 6 }), fc.array(logRow, { maxLength: 14 }), fc.nat(14), fc.constantFrom(0, NOW + 2), fc.constantFrom(1, 2, 50), async (subscriptions, rows, afterPick, notBefore, limit) => {
          await clear();
          await seedAccounts(ACCOUNTS.map(() => ({ deleted_at: null, locked_at: null })));
          await db.insertInto('profiles').values(PROFILES.map((id) => ({
            id, account_id: ownerOf(id), name: id, name_key: id, description: null, public: 0, version: 1,
            created_at: NOW, updated_at: NOW, card_json: '{}', card_hash: 'h', card_etag: '"e"', card_updated_at: NOW,
          }))).execute();
          const live: Array<{ id: string; owner: string; subscriber: string; profile: string; status: string }> = [];
          for (const [i, s] of subscriptions.entries()) {
            const owner = ownerOf(s.profile);
            if (owner === s.subscriber || live.some((l) => l.owner === owner && l.subscriber === s.subscriber)) continue;
            const row = { id: `sub_${i}`, owner, subscriber: s.subscriber, profile: s.profile, status: s.status };
            live.push(row);
            await db.insertInto('subscriptions').values({
              id: row.id, owner_id: owner, subscriber_id: s.subscriber, profile_id: s.profile, status: s.status, message: null, share_link_id: null,
              share_link_label: null, suggested_profile_id: null, version: 1, created_at: NOW, updated_at: NOW, card_since: NOW, card_changes: '[]', hidden_at: null, silent_changes: 0,
            }).execute();
          }
          const log = rows.map((r, i) => ({
            seq: i + 1,
            owner_id: 'profile' in r ? ownerOf(r.profile) : r.owner,
            profile_id: 'profile' in r ? r.profile : null,
            subscriber_id: 'subscriber' in r ? r.subscriber : null,
            changed_at: NOW + r.at,
            edited: 'edited' in r ? r.edited : 0,
          }));
          if (log.length) await db.insertInto('card_change_log').values(log).execute();
          const head = log.length;
          await db.updateTable('card_change_log_head').set({ seq: head }).execute();
          const after = Math.min(afterPick, head);

          for (const subscriberId of ACCOUNTS) {
            // The model: the rows of (after, head] that are the subscriber's own or name a card it receives now.
            const contactOf = (owner: string, profile: string | null) => live.find((l) => l.subscriber === subscriberId && l.owner === owner && l.profile === profile && l.status === 'active')?.id;
            const concerns = log.filter((r) => r.seq > after && r.seq <= head && (r.subscriber_id === subscriberId || contactOf(r.owner_id, r.profile_id) !== undefined));
            const newest = Math.max(0, ...concerns.map((r) => r.seq));
            const byOwner = new Map<string, number>();
            for (const r of concerns) byOwner.set(r.owner_id, Math.max(byOwner.get(r.owner_id) ?? 0, r.seq));
            const owners = [...byOwner].map(([owner_id, seq]) => ({ owner_id, seq })).sort((a, b) => a.seq - b.seq).slice(0, limit);
            const newestEdit = new Map<string, (typeof log)[number]>();
            for (const r of concerns) if (r.edited === 1 && r.changed_at >= notBefore) newestEdit.set(contactOf(r.owner_id, r.profile_id)!, r);
            const edits = [...newestEdit]
              .filter(([, r]) => !log.some((m) => m.subscriber_id === subscriberId && m.owner_id === r.owner_id && m.seq > r.seq))
              .map(([contact_id, r]) => ({ contact_id, seq: r.seq, changed_at: r.changed_at }))
              .sort((a, b) => a.seq - b.seq)
              .slice(0, limit);
            for (const strategy of ['stretch', 'cards'] as StrategyName[]) {
              const where = `${strategy}, ${subscriberId} after ${after}`;
              assert.equal(await concerning.head(), head);
              assert.equal(await concerning.newest(subscriberId, after, head, strategy), newest, where);
              assert.deepEqual(await concerning.owners(subscriberId, after, head, limit, strategy), owners, where);
              assert.deepEqual(await concerning.edits(subscriberId, after, head, limit, notBefore, strategy), edits, where);
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
  });
}
