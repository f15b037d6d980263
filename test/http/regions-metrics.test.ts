// The sending side of the regions' counters (docs/operations.md, Metrics): what a region's
// outbox sender had another region take, in requests and in deliveries (subjects), by receiving
// region. An edit of a card with followers in one other region is one delivery there, whatever
// their number (decision 352); the receiving region counts the same requests as accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { social } from '../helpers/social.js';

/** The value of one series in GET /metrics, undefined when it is not exposed. */
async function series(url: string | undefined, name: string, region: string): Promise<number | undefined> {
  assert.ok(url, 'METRICS_PORT is set');
  const text = await (await fetch(url)).text();
  const match = new RegExp(`^${name}\\{region="${region}"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

for (const backend of backends) {
  describe(`regions' delivery counters [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    before(async () => {
      r = await startRegions(backend, { METRICS_PORT: '0' });
    });
    after(() => r.close());

    it('counts the delivery requests and deliveries a region sent, one per edit for two followers', async () => {
      const eu = social(r.eu);
      const us = social(r.us);
      assert.equal(await series(r.eu.metricsUrl, 'vid_region_delivery_requests_total', 'us'), 0, 'the series exists from the start');
      assert.equal(await series(r.eu.metricsUrl, 'vid_region_deliveries_total', 'us'), 0);

      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const friends = await eu.profile(alice, 'Friends');
      await eu.expose(alice, friends.id, phone.id);
      for (const name of ['bob', 'carol']) {
        const follower = await us.person(name);
        const asked = await us.post(follower, '/contacts', { username: `${alice.username}@eu` });
        assert.equal(asked.status, 201, JSON.stringify(asked.body));
        assert.equal((await eu.approve(alice, asked.body.id, friends.id)).status, 200);
      }
      await r.settle();
      const before = {
        requests: (await series(r.eu.metricsUrl, 'vid_region_delivery_requests_total', 'us'))!,
        deliveries: (await series(r.eu.metricsUrl, 'vid_region_deliveries_total', 'us'))!,
        accepted: (await series(r.us.metricsUrl, 'vid_region_requests_total', 'eu'))!,
      };
      assert.ok(before.deliveries >= 2, 'each approval was delivered');

      const edited = await r.eu.client.as(alice, 'PATCH', `/api/v1/me/fields/${phone.id}`, { body: { value: '+49 30 22732153' }, headers: { 'if-match': `"${phone.version}"` } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await r.settle();
      assert.equal((await series(r.eu.metricsUrl, 'vid_region_delivery_requests_total', 'us'))! - before.requests, 1);
      assert.equal((await series(r.eu.metricsUrl, 'vid_region_deliveries_total', 'us'))! - before.deliveries, 1, 'one card delivery for both followers');
      assert.equal((await series(r.us.metricsUrl, 'vid_region_requests_total', 'eu'))! - before.accepted, 1, 'the US accepted that one request');
      assert.equal(await series(r.us.metricsUrl, 'vid_region_deliveries_total', 'eu'), 0, 'nothing went back');
    });
  });
}
