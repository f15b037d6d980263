// PRODUCT §8 / issue target: the export of a big account (200 fields, 20 profiles, 5,000
// contacts, 10,000 security-log entries) is streamed: the server's memory grows by less than
// 50 MB while it is read, and the file is whole, valid JSON.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { API, social } from '../helpers/social.js';
import { stepUp } from '../helpers/step-up.js';

const CONTACTS = 5000;
const LOG_ENTRIES = 10_000;
const MB = 1024 * 1024;

for (const backend of backends) {
  describe(`a big account's export [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('streams with the server\'s RSS growing by less than 50 MB', async (ctx) => {
      const s = social(t);
      const owner = await s.person('big');
      const db = t.store.handle.db;
      const now = t.clock.now();
      const tag = owner.accountId.slice(-8).toLowerCase().replace(/[^a-z0-9]/g, 'x');
      for (let i = 0; i < 200; i += 50) {
        await db.insertInto('fields').values(Array.from({ length: 50 }, (_, j) => ({
          id: `fld_big${tag}${String(i + j).padStart(14, '0')}`, account_id: owner.accountId, type: 'nickname', label: null, country: null,
          value: JSON.stringify(`Nickname number ${i + j}`), input: null, details: '{}', version: 1, created_at: now, updated_at: now,
        }))).execute();
      }
      for (let i = 0; i < 20; i++) await s.profile(owner, `Profile ${i}`);
      // 5,000 people the owner subscribes to, each showing a card.
      for (let i = 0; i < CONTACTS; i += 500) {
        const others = Array.from({ length: 500 }, (_, j) => `${tag}${String(i + j).padStart(5, '0')}`);
        await db.insertInto('accounts').values(others.map((n) => ({
          id: `acc_exp${n}`, username: `exp${n}`, username_canonical: `exp${n}`, username_skeleton: `exp${n}`, user_handle: `h${n}`,
          display_name: `Person ${n}`, locale: null, default_country: null, region: 'eu', version: 1, created_at: now,
        }))).execute();
        await db.insertInto('subscriptions').values(others.map((n) => ({
          id: `sub_exp${n}`, owner_id: `acc_exp${n}`, subscriber_id: owner.accountId, profile_id: null, status: 'active',
          message: 'Hello, it is me from the conference', share_link_id: null, version: 1, created_at: now, updated_at: now, card_since: now, hidden_at: null,
        }))).execute();
      }
      for (let i = 0; i < LOG_ENTRIES; i += 1000) {
        await db.insertInto('security_log').values(Array.from({ length: 1000 }, (_, j) => ({
          id: `sec_exp${tag}${String(i + j).padStart(12, '0')}`, account_id: owner.accountId, kind: 'signed_in', created_at: now - (i + j),
          ip: '203.0.113.7', location: 'Berlin, DE', user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1', detail: null,
        }))).execute();
      }

      // Read the stream without keeping it (the client side must not be what grows), and watch RSS.
      const proof = await owner.key.proof('GET', `${t.client.publicOrigin}${API}/account/export`, { accessToken: owner.tokens.access_token });
      global.gc?.();
      const start = process.memoryUsage().rss;
      let peak = start;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const res = await fetch(`${t.baseUrl}${API}/account/export`, {
        headers: { authorization: `DPoP ${owner.tokens.access_token}`, dpop: proof, 'vid-step-up': await stepUp(t.client, owner) },
      });
      assert.equal(res.status, 200);
      let bytes = 0;
      let tail = '';
      let contacts = 0;
      const decoder = new TextDecoder();
      for await (const chunk of res.body!) {
        bytes += chunk.byteLength;
        const text = tail + decoder.decode(chunk, { stream: true });
        // The carried-over tail was counted with the chunk before.
        contacts += text.split('"contact":{').length - tail.split('"contact":{').length;
        tail = text.slice(-16);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      clearInterval(sampler);
      const grew = (peak - start) / MB;
      assert.ok(bytes > 3 * MB, `the export is ${bytes} bytes`);
      assert.equal(contacts, CONTACTS);
      ctx.diagnostic(`${(bytes / MB).toFixed(1)} MB exported; RSS grew by ${grew.toFixed(1)} MB`);
      assert.ok(grew < 50, `RSS grew by ${grew.toFixed(1)} MB while ${(bytes / MB).toFixed(1)} MB streamed`);
    });
  });
}
