// Photos (decision 291) for scenario p of bench/run.ts: the upload of a 12-megapixel camera-like
// JPEG, one at a time (p50) and eight at once (the server's peak RSS while libvips decodes them,
// two at a time), and the cards of the contact scenario again once each shows a photo (its 64 px
// thumbnail inline), to be read against j in the same run.
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { ServerProcess } from './lib/processes.js';
import { API, clientFor, expectStatus } from './lib/vid.js';
import type { BenchCard, BenchContact, BenchDevice } from './lib/vid.js';

/** A 4000×3000 picture with gradients and grain, so the JPEG is the size a phone's would be. */
async function cameraJpeg(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = Math.sin(x / 37) * Math.cos(y / 23) * 100 + 128 + ((x * 7919 + y * 104729) % 41) - 20;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function measurePhotos(server: ServerProcess, accounts: BenchDevice[], cards: BenchCard[], contacts: BenchContact[], log: (line: string) => void) {
  const client = clientFor(server.port);
  const jpeg = await cameraJpeg();
  const upload = async (account: BenchDevice) =>
    (await expectStatus(201, 'POST /me/photos', client.as(account.device, 'POST', `${API}/me/photos`, { rawBody: jpeg, headers: { 'content-type': 'image/jpeg', 'idempotency-key': randomUUID() } }))).body.id as string;

  log(`uploading a ${(jpeg.length / 1e6).toFixed(1)} MB 12-megapixel JPEG: 9 one at a time, then 8 at once`);
  const times: number[] = [];
  for (let i = 0; i < 9; i++) {
    const started = performance.now();
    await upload(accounts[i % accounts.length]!);
    times.push(performance.now() - started);
  }
  const idle = server.memory()?.rss ?? Number.NaN;
  server.startSampling();
  const startedAll = performance.now();
  await Promise.all(Array.from({ length: 8 }, (_, i) => upload(accounts[(i + 9) % accounts.length]!)));
  const allMs = performance.now() - startedAll;
  const peak = server.stopSampling();

  // Every owner shows a photo on the profile its follower sees; the follower's card tag changes.
  log('giving every card of the contact scenario a photo');
  const withPhoto: BenchContact[] = [];
  for (const [i, account] of accounts.entries()) {
    const photoId = await upload(account);
    const field = await expectStatus(201, 'POST /me/fields', client.as(account.device, 'POST', `${API}/me/fields`, { body: { type: 'photo', value: { photo_id: photoId } }, headers: { 'idempotency-key': randomUUID() } }));
    await expectStatus(201, 'PUT exposure', client.as(account.device, 'PUT', `${API}/profiles/${cards[i]!.profileIds[0]}/exposures/${field.body.id}`, { body: {} }));
  }
  for (const [i, contact] of contacts.entries()) {
    const card = await expectStatus(200, 'GET contact card', client.as(accounts[i]!.device, 'GET', contact.cardPath));
    if (!JSON.stringify(card.body).includes('"type":"photo"')) throw new Error('the card shows no photo');
    withPhoto.push({ cardPath: contact.cardPath, cardEtag: card.headers.get('etag')! });
  }
  return { bytes: jpeg.length, uploadP50: median(times), eightMs: allMs, idle, peak, withPhoto };
}
