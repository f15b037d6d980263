// Photos (PRODUCT §2, issue "Photos on cards"): uploads are re-encoded (orientation applied,
// square, no metadata), hostile files are refused with a problem and never a 5xx, and a photo is
// served exactly to those a card shows it to, by the cards' own audience rule.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { CallResult, Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';
import { upload } from '../helpers/photos.js';
import { STEP_UP_HEADER, stepUp } from '../helpers/step-up.js';
import { API, social } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';

/** A JPEG that carries what a phone's camera writes: an orientation, GPS, a comment. */
async function cameraJpeg(width = 400, height = 300): Promise<Buffer> {
  // Left half red, right half blue: after the orientation is applied the halves are on top and bottom.
  const left = await sharp({ create: { width: width / 2, height, channels: 3, background: '#ff0000' } }).png().toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#0000ff' } })
    .composite([{ input: left, left: 0, top: 0 }])
    .withMetadata({ orientation: 6 })
    .withExifMerge({ IFD0: { ImageDescription: 'secret comment', Make: 'PhoneMaker' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 30/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 5/1' } })
    .jpeg()
    .toBuffer();
}

/** A PNG whose header claims width×height, with one deflated row of zeros: refused before any decoding. */
function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, no interlace (PNG §11.2.2)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.alloc(width + 1))), chunk('IEND', Buffer.alloc(0))]);
}

/** CRC-32 as PNG computes it (ISO 3309, PNG §5.5). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

for (const backend of backends) {
  describe(`photos [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => {
      t = await startTestApp(backend);
      s = social(t);
    });
    after(() => t.close());

    it('keeps only its own re-encoding: upright, square, three sizes, no metadata at all', async () => {
      const ada = await s.person('ada');
      const sent = await cameraJpeg();
      assert.equal((await sharp(sent).metadata()).orientation, 6, 'the upload carries an orientation');
      assert.ok(sent.includes(Buffer.from('PhoneMaker')), 'and a camera tag');
      const res = await upload(t, ada, sent);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.body.id, /^pho_/);
      assert.deepEqual(res.body.sizes, [64, 256, 512]);
      for (const size of [64, 256, 512]) {
        const got = await s.get(ada, `/photos/${res.body.id}?size=${size}`);
        assert.equal(got.status, 200);
        assert.equal(got.headers.get('content-type'), 'image/jpeg');
        const meta = await sharp(got.body).metadata();
        assert.equal(meta.format, 'jpeg');
        assert.deepEqual([meta.width, meta.height], [size, size]);
        assert.equal(meta.exif, undefined, 'no EXIF (GPS, camera, comment)');
        assert.equal(meta.xmp, undefined);
        assert.equal(meta.orientation, undefined);
        assert.ok(!got.body.includes(Buffer.from('secret comment')) && !got.body.includes(Buffer.from('PhoneMaker')));
      }
      // Orientation 6 turns the picture a quarter clockwise: the red left half is on top now.
      const { data, info } = await sharp((await s.get(ada, `/photos/${res.body.id}?size=64`)).body).raw().toBuffer({ resolveWithObject: true });
      const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      assert.ok(pixel(32, 5)[0]! > 200 && pixel(32, 5)[2]! < 60, `top is red: ${pixel(32, 5)}`);
      assert.ok(pixel(32, 58)[2]! > 200 && pixel(32, 58)[0]! < 60, `bottom is blue: ${pixel(32, 58)}`);
      const listed = await s.get(ada, '/me/photos');
      assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [res.body.id]);
    });

    it('refuses hostile and wrong files with a problem, never a 5xx, and stores nothing', async () => {
      const eve = await s.person('eve');
      // A decompression bomb: a few kilobytes of PNG that would decode to 400 megapixels.
      const bomb = pngBomb(20_000, 20_000);
      expectProblem(await upload(t, eve, bomb, 'image/png'), 413, 'photo_too_large');
      const strip = await sharp({ create: { width: 2, height: 50_000, channels: 3, background: '#888' } }).png().toBuffer();
      expectProblem(await upload(t, eve, strip, 'image/png'), 422, 'photo_unreadable');
      const jpeg = await cameraJpeg();
      expectProblem(await upload(t, eve, jpeg.subarray(0, Math.floor(jpeg.length / 2))), 422, 'photo_unreadable');
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(1)</script><rect width="100" height="100"/></svg>');
      expectProblem(await upload(t, eve, svg, 'image/jpeg'), 422, 'photo_unreadable');
      expectProblem(await upload(t, eve, svg, 'image/svg+xml'), 415, 'photo_unreadable');
      const gif = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0f0' } }).gif().toBuffer();
      expectProblem(await upload(t, eve, gif, 'image/png'), 422, 'photo_unreadable');
      // A polyglot: a real JPEG with a script appended after its end marker is re-encoded, the tail gone.
      const polyglot = Buffer.concat([jpeg, Buffer.from('<script>alert(1)</script>')]);
      const kept = await upload(t, eve, polyglot);
      assert.equal(kept.status, 201);
      assert.ok(!(await s.get(eve, `/photos/${kept.body.id}?size=512`)).body.includes(Buffer.from('<script>')));
      expectProblem(await upload(t, eve, Buffer.alloc(10 * 1024 * 1024 + 1, 0xff)), 413, 'photo_too_large');
      expectProblem(await upload(t, eve, jpeg, 'image/jpeg', '?crop=300,0,200'), 422, 'photo_unreadable');
      expectProblem(await t.client.as(eve, 'POST', `${API}/me/photos`, { body: { photo: 'x' }, headers: { 'idempotency-key': randomUUID() } }), 415, 'photo_unreadable');
      assert.equal((await s.get(eve, '/me/photos')).body.data.length, 1, 'only the polyglot, re-encoded');
    });

    it('serves a photo to exactly those a card shows it to; a revoked follower and strangers get 404', async () => {
      const owner = await s.person('owner');
      const [friend, stranger] = [await s.person('friend'), await s.person('stranger')];
      const photo = (await upload(t, owner, await cameraJpeg())).body.id as string;
      const url = `${API}/photos/${photo}`;
      const anonymous = () => t.client.call('GET', url);
      expectProblem(await anonymous(), 404, 'photo_not_found');
      expectProblem(await s.get(stranger, `/photos/${photo}`), 404, 'photo_not_found');
      expectProblem(await s.get(stranger, '/photos/pho_doesnotexistdoesnotexis'), 404, 'photo_not_found');
      // A field of another account's photo is refused like any invalid value.
      expectProblem(await s.post(stranger, '/me/fields', { type: 'photo', value: { photo_id: photo } }), 400, 'validation_failed');

      const field = await s.field(owner, { type: 'photo', value: { photo_id: photo } });
      assert.match(field.details.thumbnail, /^data:image\/jpeg;base64,/);
      const friends = await s.profile(owner, 'Friends');
      const contact = await s.connect(friend, owner, friends.id);
      expectProblem(await s.get(friend, `/photos/${photo}`), 404, 'photo_not_found', 'not on the card yet');
      await s.expose(owner, friends.id, field.id);
      const seen = await s.get(friend, `/photos/${photo}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.headers.get('cache-control'), 'private, no-cache');
      const etag = seen.headers.get('etag')!;
      assert.equal((await s.get(friend, `/photos/${photo}`, { 'if-none-match': etag })).status, 304);
      const card = (await s.get(friend, `/contacts/${contact}/card`)).body;
      assert.equal(card.fields.find((f: { type: string }) => f.type === 'photo').value.photo_id, photo);
      expectProblem(await anonymous(), 404, 'photo_not_found', 'not public');

      // On the public card too: anyone, cacheable.
      const everyone = await s.profile(owner, 'Everyone', true);
      await s.expose(owner, everyone.id, field.id);
      const open = await anonymous();
      assert.equal(open.status, 200);
      assert.equal(open.headers.get('cache-control'), 'public, max-age=60');
      await t.client.as(owner, 'DELETE', `${API}/profiles/${everyone.id}/exposures/${field.id}`);
      expectProblem(await anonymous(), 404, 'photo_not_found');

      assert.equal((await s.post(owner, `/subscriptions/${contact}/revoke`, {})).status, 200);
      expectProblem(await s.get(friend, `/photos/${photo}`), 404, 'photo_not_found', 'revoked: at once');
    });

    it('a vCard carries the photo inline; deleting the photo takes it off every card', async () => {
      const owner = await s.person('owner');
      const friend = await s.person('friend');
      const photo = (await upload(t, owner, await cameraJpeg())).body.id as string;
      const field = await s.field(owner, { type: 'photo', value: { photo_id: photo } });
      const work = await s.profile(owner, 'Work');
      await s.expose(owner, work.id, field.id);
      const contact = await s.connect(friend, owner, work.id);
      for (const version of ['3.0', '4.0']) {
        const vcard = (await s.get(friend, `/contacts/${contact}/vcard?version=${version}`)).body as string;
        const unfolded = vcard.replace(/\r\n[ \t]/g, '');
        const line = unfolded.split('\r\n').find((l) => l.startsWith('PHOTO'))!;
        assert.ok(line, `PHOTO in ${version}`);
        const base64 = version === '3.0' ? line.replace(/^PHOTO;ENCODING=b;TYPE=JPEG:/, '') : line.replace(/^PHOTO:data:image\/jpeg;base64,/, '');
        const meta = await sharp(Buffer.from(base64, 'base64')).metadata();
        assert.deepEqual([meta.format, meta.width], ['jpeg', 256]);
      }
      const before = (await s.get(friend, `/contacts/${contact}/card`)).headers.get('etag');
      const seen = (await s.signals(friend)).length;
      assert.equal((await t.client.as(owner, 'DELETE', `${API}/me/photos/${photo}`)).status, 204);
      expectProblem(await s.get(owner, `/me/fields/${field.id}`), 404, 'field_not_found');
      const card = await s.get(friend, `/contacts/${contact}/card`);
      assert.notEqual(card.headers.get('etag'), before);
      assert.ok(!card.body.fields.some((f: { type: string }) => f.type === 'photo'));
      assert.ok((await s.signals(friend)).slice(seen).some(([kind]) => kind === 'contact.card.changed'), 'the follower is told');
      expectProblem(await s.get(owner, `/photos/${photo}`), 404, 'photo_not_found');
      assert.ok(!((await s.get(friend, `/contacts/${contact}/vcard`)).body as string).includes('PHOTO'));
    });

    it('the account export holds every photo in every size, as the server keeps it', async () => {
      const owner = await s.person('owner');
      const photo = (await upload(t, owner, await cameraJpeg())).body.id as string;
      const exported = await t.client.as(owner, 'GET', `${API}/account/export`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, owner) } });
      assert.equal(exported.status, 200);
      const body = typeof exported.body === 'string' ? JSON.parse(exported.body) : exported.body;
      const [held] = body.photos as Array<{ id: string; jpeg: Record<string, string> }>;
      assert.equal(held!.id, photo);
      for (const size of ['64', '256', '512']) {
        const served = (await s.get(owner, `/photos/${photo}?size=${size}`)).body as Buffer;
        assert.ok(Buffer.from(held!.jpeg[size]!, 'base64').equals(served), `the ${size} px square as served`);
      }
    });
  });
}
