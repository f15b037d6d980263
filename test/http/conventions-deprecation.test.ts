// PRODUCT §0 / STANDARDS "Deprecation": routes named in DEPRECATED_ROUTES send
// `Deprecation: @<unix-seconds>` (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and Link relations
// "deprecation" and "sunset"; every other route sends none of them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';

const DEPRECATED_AT = '2026-01-01T00:00:00Z';
const SUNSET_AT = '2027-01-01T00:00:00Z';
const LINK = 'https://example.com/migrate';
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** RFC 8288 Link header → [{target, rel}] (enough for our own header: no commas inside targets). */
function parseLinks(header: string | null): { target: string; rels: string[] }[] {
  if (!header) return [];
  return header.split(/,\s*(?=<)/).map((part) => {
    const target = /^<([^>]*)>/.exec(part.trim())?.[1] ?? '';
    const rel = /;\s*rel="?([^";]+)"?/i.exec(part)?.[1] ?? '';
    return { target, rels: rel.toLowerCase().split(/\s+/).filter(Boolean) };
  });
}

function assertDeprecated(res: CallResult): void {
  assert.equal(res.headers.get('deprecation'), `@${Date.parse(DEPRECATED_AT) / 1000}`);
  assert.equal(res.headers.get('deprecation'), '@1767225600');
  const sunset = res.headers.get('sunset') ?? '';
  assert.match(sunset, IMF_FIXDATE);
  assert.equal(sunset, 'Fri, 01 Jan 2027 00:00:00 GMT');
  assert.equal(Date.parse(sunset), Date.parse(SUNSET_AT));
  assert.ok(Date.parse(sunset) / 1000 >= Number(res.headers.get('deprecation')!.slice(1)), 'sunset not before deprecation');
  const links = parseLinks(res.headers.get('link'));
  assert.ok(links.some((l) => l.target === LINK && l.rels.includes('deprecation')), `rel="deprecation" in ${res.headers.get('link')}`);
  assert.ok(links.some((l) => l.target === LINK && l.rels.includes('sunset')), `rel="sunset" in ${res.headers.get('link')}`);
}

function assertNotDeprecated(res: CallResult): void {
  assert.equal(res.headers.get('deprecation'), null);
  assert.equal(res.headers.get('sunset'), null);
  const links = parseLinks(res.headers.get('link'));
  assert.ok(!links.some((l) => l.rels.includes('deprecation') || l.rels.includes('sunset')), `no deprecation links: ${res.headers.get('link')}`);
}

for (const backend of backends) {
  describe(`conventions: deprecated routes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let device: Device;
    before(async () => {
      t = await startTestApp(backend, {
        DEPRECATED_ROUTES: JSON.stringify({ 'GET /api/v1/me': { deprecated_at: DEPRECATED_AT, sunset_at: SUNSET_AT, link: LINK } }),
      });
      device = await t.client.signUp(uniqueName('depr'));
    });
    after(() => t.close());

    it('announces Deprecation, Sunset and both Link relations on GET /api/v1/me', async () => {
      const me = await t.client.as(device, 'GET', '/api/v1/me');
      assert.equal(me.status, 200);
      assertDeprecated(me);
    });

    it('announces them on a refused call of the deprecated route as well', async () => {
      const anonymous = await t.client.call('GET', '/api/v1/me');
      assert.equal(anonymous.status, 401);
      assertDeprecated(anonymous);
    });

    it('sends none of them on other routes, including another method on the same path', async () => {
      const patched = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: 'Still Here' }, headers: { 'if-match': '"1"' } });
      assert.ok([200, 412].includes(patched.status), JSON.stringify(patched.body));
      assertNotDeprecated(patched);
      assertNotDeprecated(await t.client.as(device, 'GET', '/api/v1/auth/sessions'));
      assertNotDeprecated(await t.client.call('POST', '/api/v1/auth/username/check', { body: { username: uniqueName('x') } }));
      assertNotDeprecated(await t.client.call('GET', '/api/v1/me/elsewhere', { unchecked: true }));
      assertNotDeprecated(await t.client.call('GET', '/health/live', { unchecked: true }));
    });
  });

  describe(`conventions: no deprecations configured [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('sends no Deprecation or Sunset on GET /api/v1/me', async () => {
      const device = await t.client.signUp(uniqueName('plain'));
      const me = await t.client.as(device, 'GET', '/api/v1/me');
      assert.equal(me.status, 200);
      assertNotDeprecated(me);
    });
  });
}
