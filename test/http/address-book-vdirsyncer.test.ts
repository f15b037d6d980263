// A real client against the real server process: Debian's vdirsyncer discovers a follower's
// address book from the server URL and syncs it into a folder of .vcf files, and khard reads
// the fields from there. Then an owner's edit, a revoke and an exposure change are each
// followed by one sync that shows exactly that change in the folder.
import sharp from 'sharp';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { serveDatabase, startServerProcess } from '../helpers/cli.js';
import type { ServedDatabase } from '../helpers/cli.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { API } from '../helpers/social.js';
import { STEP_UP_HEADER, stepUp } from '../helpers/step-up.js';

const run = promisify(execFile);

/** The folder vdirsyncer keeps: each card's UID → its vCard text. */
function folder(dir: string): Map<string, string> {
  const cards = new Map<string, string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.vcf'))) {
    const text = readFileSync(join(dir, name), 'utf8');
    const uid = /^UID:(.+)$/m.exec(text.replace(/\r\n[ \t]/g, ''))![1]!.trim();
    cards.set(uid, text);
  }
  return cards;
}

/** UIDs whose card differs between two reads of the folder (added, removed or changed). */
function differences(before: Map<string, string>, after: Map<string, string>): { added: string[]; removed: string[]; changed: string[] } {
  return {
    added: [...after.keys()].filter((uid) => !before.has(uid)),
    removed: [...before.keys()].filter((uid) => !after.has(uid)),
    changed: [...after.keys()].filter((uid) => before.has(uid) && before.get(uid) !== after.get(uid)),
  };
}

for (const backend of backends) {
  describe(`address book: vdirsyncer and khard against the server process [${backend.name}]`, { skip: backend.skip }, () => {
    let db: ServedDatabase;
    let server: Awaited<ReturnType<typeof startServerProcess>>;
    let client: TestClient;

    before(async () => {
      // The database is made and migrated once, then served by the server process alone.
      db = await serveDatabase(backend);
      await db.stop();
      server = await startServerProcess(db.env);
      const document = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json();
      client = new TestClient(server.baseUrl, PUBLIC_ORIGIN, createContractChecker(document), Date.now);
    });
    after(async () => {
      await server?.stop();
      await db?.cleanup();
    });

    const post = (device: Device, path: string, body: unknown) => client.as(device, 'POST', `${API}${path}`, { body, headers: { 'idempotency-key': crypto.randomUUID() } });
    async function created(res: { status: number; body: any }) {
      assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
      return res.body;
    }

    it('discover + sync into a folder; khard reads it; an edit, a revoke and an exposure change each arrive in one sync, alone', async () => {
      const reader = await client.signUp(uniqueName('reader'));
      const owners: Array<{ device: Device; profile: string; email: string; nickname: string; contact: string; uid?: string }> = [];
      for (const [name, nick] of [['ada', 'Ada Lovelace'], ['bob', 'Bob Babbage']] as const) {
        const device = await client.signUp(uniqueName(name));
        const nickname = await created(await post(device, '/me/fields', { type: 'nickname', value: nick }));
        const email = await created(await post(device, '/me/fields', { type: 'email', value: `${name}@example.org` }));
        const profile = await created(await post(device, '/profiles', { name: 'Friends' }));
        for (const field of [nickname, email]) await created(await client.as(device, 'PUT', `${API}/profiles/${profile.id}/exposures/${field.id}`, { body: {} }));
        const request = await created(await post(reader, '/contacts', { username: device.username }));
        await created(await post(device, `/subscriptions/${request.id}/approve`, { profile_id: profile.id }));
        owners.push({ device, profile: profile.id, email: email.id, nickname: nickname.id, contact: request.id });
      }
      const token = await created(
        await client.as(reader, 'POST', `${API}/dav-tokens`, { body: { label: 'vdirsyncer' }, headers: { 'idempotency-key': crypto.randomUUID(), [STEP_UP_HEADER]: await stepUp(client, reader) } }),
      );

      const dir = join(db.dir, 'client');
      mkdirSync(join(dir, 'status'), { recursive: true });
      mkdirSync(join(dir, 'contacts'), { recursive: true });
      const vdirsyncerConfig = join(dir, 'vdirsyncer.conf');
      writeFileSync(
        vdirsyncerConfig,
        `[general]
status_path = "${join(dir, 'status')}/"

[pair people]
a = "people_local"
b = "people_remote"
collections = ["from b"]
conflict_resolution = "b wins"

[storage people_local]
type = "filesystem"
path = "${join(dir, 'contacts')}/"
fileext = ".vcf"

[storage people_remote]
type = "carddav"
url = "${server.baseUrl}/"
username = "${token.username}"
password = "${token.secret}"
read_only = true
`,
      );
      const khardConfig = join(dir, 'khard.conf');
      writeFileSync(
        khardConfig,
        `[addressbooks]
[[following]]
path = ${join(dir, 'contacts', 'following')}/

[general]
default_action = list
editor = true
merge_editor = true

[contact table]
display = formatted_name
show_uids = yes
`,
      );
      const vdirsyncer = async (...args: string[]) => {
        const child = run('vdirsyncer', ['-c', vdirsyncerConfig, ...args], { env: { ...process.env, LC_ALL: 'C.UTF-8' } });
        child.child.stdin?.end('y\ny\n');
        return child;
      };
      const khard = async (...args: string[]) => (await run('khard', ['-c', khardConfig, ...args], { env: { ...process.env, LC_ALL: 'C.UTF-8' } })).stdout;

      await vdirsyncer('discover', 'people');
      await vdirsyncer('sync', 'people');
      const book = join(dir, 'contacts', 'following');
      let before = folder(book);
      assert.equal(before.size, 2, [...before.values()].join('\n'));
      for (const text of before.values()) assert.match(text, /^VERSION:3\.0\r?$/m);
      const emails = await khard('email', '--parsable');
      assert.match(emails, /ada@example\.org/);
      assert.match(emails, /bob@example\.org/);
      const listed = await khard('list', '--parsable');
      assert.match(listed, /Ada Lovelace|ada/i);
      for (const owner of owners) owner.uid = [...before.entries()].find(([, text]) => text.includes(owner.device.username))?.[0];
      assert.ok(owners.every((o) => o.uid), 'each card carries its owner');
      const [ada, bob] = owners as Array<Required<(typeof owners)[number]>>;

      // An edit: that card alone changes.
      const edited = await client.as(ada!.device, 'PATCH', `${API}/me/fields/${ada!.nickname}`, { body: { value: 'Countess Lovelace' }, headers: { 'if-match': '"1"' } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await vdirsyncer('sync', 'people');
      let now = folder(book);
      assert.deepEqual(differences(before, now), { added: [], removed: [], changed: [ada!.uid] });
      assert.match(now.get(ada!.uid)!, /Countess Lovelace/);
      before = now;

      // A revoke: that card alone leaves the folder.
      assert.equal((await post(bob!.device, `/subscriptions/${bob!.contact}/revoke`, {})).status, 200);
      await vdirsyncer('sync', 'people');
      now = folder(book);
      assert.deepEqual(differences(before, now), { added: [], removed: [bob!.uid], changed: [] });
      assert.doesNotMatch(await khard('email', '--parsable'), /bob@example\.org/);
      before = now;

      // Ada hides her email from the profile the reader sees: her card changes, without it.
      assert.equal((await client.as(ada!.device, 'DELETE', `${API}/profiles/${ada!.profile}/exposures/${ada!.email}`)).status, 204);
      await vdirsyncer('sync', 'people');
      now = folder(book);
      assert.deepEqual(differences(before, now), { added: [], removed: [], changed: [ada!.uid] });
      assert.doesNotMatch(now.get(ada!.uid)!, /EMAIL/);
      assert.doesNotMatch(await khard('email', '--parsable').catch((error: { stdout?: string }) => error.stdout ?? ''), /ada@example\.org/);
      assert.match(await khard('show', '--format', 'yaml', 'Countess'), /Countess Lovelace/);

      before = now;

      // Ada adds a photo to the card the reader sees: that card alone changes, with PHOTO inline.
      const jpeg = await sharp({ create: { width: 120, height: 120, channels: 3, background: '#aa3355' } }).jpeg().toBuffer();
      const photo = await client.as(ada!.device, 'POST', `${API}/me/photos`, { rawBody: jpeg, headers: { 'content-type': 'image/jpeg', 'idempotency-key': crypto.randomUUID() } });
      assert.equal(photo.status, 201, JSON.stringify(photo.body));
      const photoField = await created(await post(ada!.device, '/me/fields', { type: 'photo', value: { photo_id: photo.body.id } }));
      await created(await client.as(ada!.device, 'PUT', `${API}/profiles/${ada!.profile}/exposures/${photoField.id}`, { body: {} }));
      await vdirsyncer('sync', 'people');
      now = folder(book);
      assert.deepEqual(differences(before, now), { added: [], removed: [], changed: [ada!.uid] });
      assert.match(now.get(ada!.uid)!, /^PHOTO;ENCODING=b;TYPE=JPEG:/m);

      // A read-only remote: nothing the sync did wrote to the server (the card is still the owner's).
      const card = await fetch(`${server.baseUrl}/dav/addressbooks/${reader.accountId}/following/${ada!.device.accountId}.vcf`, {
        headers: { authorization: `Basic ${Buffer.from(`${token.username}:${token.secret}`).toString('base64')}` },
      });
      assert.equal(card.status, 200);
      assert.match(await card.text(), /Countess Lovelace/);
    });
  });
}
