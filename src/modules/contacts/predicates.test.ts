// The subscription predicates are named once (tables.ts, states.ts); a few statements write them
// as SQL literals for their plans (the audience rule's CASE, the live-pair probes), and the
// live-pair index itself was made by a migration with a literal list. These tests fail when a
// literal and its name part: the statements are compiled without a database and read back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { waitingRequests } from './migrations/023-waiting-requests.js';
import { subscriptionQueries } from './queries.js';
import { ACTIVE, ENDED, isActive, LIVE_SEEN_BY_OWNER, LIVE_TO_OWNER, LIVE_TO_SUBSCRIBER, SEEN_BY_SUBSCRIBER, STATUSES, TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { ACTIVE_STATUS, ENDED_STATUSES, LIVE_PAIR_STATUSES } from './tables.js';

/** A Kysely that runs nothing and keeps every statement it was asked to run. */
function recorder(): { db: Kysely<any>; ran: CompiledQuery[] } {
  const ran: CompiledQuery[] = [];
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (inner) => new SqliteIntrospector(inner),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    log: (event) => void ran.push(event.query),
  });
  return { db, ran };
}

const ALL = Object.keys(SEEN_BY_SUBSCRIBER) as SubscriptionStatus[];
const literalList = (statuses: readonly string[]) => `(${statuses.map((status) => `'${status}'`).join(', ')})`;
const sorted = (statuses: readonly string[]) => [...statuses].sort();

describe('the subscription predicates', () => {
  it('active is the state approve and move reach and move and revoke leave', () => {
    assert.equal(ACTIVE, ACTIVE_STATUS);
    assert.equal(TRANSITIONS.approve.to, ACTIVE);
    assert.equal(TRANSITIONS.move.to, ACTIVE);
    assert.deepEqual(TRANSITIONS.move.from, [ACTIVE]);
    assert.deepEqual(TRANSITIONS.revoke.from, [ACTIVE]);
    assert.deepEqual(ALL.filter(isActive), [ACTIVE]);
  });

  it('the live sets hold active, and ended is what a subscriber cannot unsubscribe from', () => {
    assert.ok(LIVE_TO_SUBSCRIBER.includes(ACTIVE) && LIVE_TO_OWNER.includes(ACTIVE) && LIVE_SEEN_BY_OWNER.includes(ACTIVE));
    assert.deepEqual(sorted(LIVE_TO_SUBSCRIBER), sorted(TRANSITIONS.unsubscribe.from));
    assert.deepEqual(sorted(ENDED), sorted(ALL.filter((status) => !(TRANSITIONS.unsubscribe.from as readonly string[]).includes(status))));
    assert.deepEqual(ENDED, ENDED_STATUSES);
    // The owner sees every live one but a blocked person's request.
    assert.deepEqual(sorted(LIVE_SEEN_BY_OWNER), sorted(LIVE_TO_SUBSCRIBER.filter((status) => (STATUSES as readonly string[]).includes(status))));
  });

  it('the live-pair index and the waiting index hold the conditions the constants name, in their order', async () => {
    const { db, ran } = recorder();
    await waitingRequests.up(db);
    const index = (name: string) => ran.map((query) => query.sql).find((text) => text.startsWith(`create unique index "${name}"`) || text.startsWith(`create index "${name}"`));
    assert.match(index('subscriptions_live_pair_uq')!, new RegExp(`where "status" in ${escape(literalList(LIVE_PAIR_STATUSES))}$`));
    assert.match(index('subscriptions_waiting_idx')!, new RegExp(`where "status" in ${escape(literalList(TRANSITIONS.expire.from))}$`));
  });

  it('the statements that write them as literals write the constants', async () => {
    const { db, ran } = recorder();
    const subs = subscriptionQueries(db as never);
    const compiled = (expression: Parameters<typeof sql.join>[0][number]) => sql`select ${expression}`.compile(db).sql;
    // The live-pair probe: the index's condition, then active.
    for (const probe of [compiled(subs.receivedContact('sub', 'x.owner_id', 'x.profile_id'))]) {
      assert.ok(probe.includes(`received.status in ${literalList(LIVE_PAIR_STATUSES)} and received.status = '${ACTIVE}'`), probe);
    }
    // The audience rule: anything but active shows nothing.
    await subs.contactAccess('sub', 'sub_1');
    await subs.shownCardsPage('sub', { owners: ['acc_1'], limit: 1, json: false });
    const [access, page] = ran.map((query) => query.sql);
    assert.ok(access!.includes(`"subscriptions"."status" <> '${ACTIVE}' then 'not_active'`), access);
    assert.ok(page!.includes(`"subscriptions"."status" in ${literalList(LIVE_PAIR_STATUSES)}`), page);
    // Elsewhere active is a parameter: the constant itself.
    ran.length = 0;
    await subs.countActive('acc_1', 'prf_1').catch(() => undefined);
    await subs.profilesReceivedFrom('acc_1');
    for (const query of ran) assert.ok(query.parameters.includes(ACTIVE) && !query.sql.includes(`'${ACTIVE}'`), query.sql);
    assert.equal(ran.length, 2);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
