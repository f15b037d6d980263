// Photo uploads through the real API (POST /me/photos takes the image bytes as the body).
import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.js';
import type { CallResult, Device } from './client.js';
import { API } from './social.js';

/** Uploads bytes as a photo of the device's account, with a fresh Idempotency-Key. */
export async function upload(t: TestApp, device: Device, bytes: Buffer, type = 'image/jpeg', query = ''): Promise<CallResult> {
  return t.client.as(device, 'POST', `${API}/me/photos${query}`, { rawBody: bytes, headers: { 'content-type': type, 'idempotency-key': randomUUID() } });
}

