import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { keysetPages, page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { processPhoto } from './processing.js';
import type { Crop, PHOTO_MEDIA_TYPES } from './processing.js';
import { PHOTO_SIZES } from './tables.js';
import type { PhotoSize } from './tables.js';
import type { PhotoSummary, photoQueries } from './queries.js';

/** Photos an account may keep at once: a few faces for a few audiences (PRODUCT §2). */
export const MAX_PHOTOS_PER_ACCOUNT = 8;

export interface PhotoView {
  id: string;
  sizes: number[];
  created_at: string;
  schema_version: 1;
}

/** What a card's photo field carries so a client shows the face without another request per contact. */
export interface PhotoDetails {
  /** The 64 px square as a data: URL (RFC 2397), a few kilobytes. */
  thumbnail: string;
  sizes: number[];
  /** Changes whenever the photo's bytes do: a card showing another photo is another card. */
  photo_tag: string;
}

type Repo = RepositoryOf<{ photos: typeof photoQueries }>;
const iso = (t: number) => new Date(t).toISOString();
const notFound = () => refuse('photo_not_found', 'you have no photo with this id');

function view(row: PhotoSummary): PhotoView {
  return { id: row.id, sizes: [...PHOTO_SIZES], created_at: iso(Number(row.created_at)), schema_version: 1 };
}

/** Photos (PRODUCT §2): uploads re-encoded by the server, shown through fields of type photo. */
export function createPhotoService(deps: { db: Repo; clock: Clock }) {
  const { db, clock } = deps;
  /** A photo went, in its transaction: the fields showing it go too (and so the cards). */
  const removed = txHook<{ accountId: string; photoId: string }>();

  return {
    onRemoved: removed.subscribe,

    /** POST /me/photos: decoded, squared, re-encoded; the upload itself is never stored. */
    async upload(auth: AuthContext, bytes: Buffer, mediaType: (typeof PHOTO_MEDIA_TYPES)[number], crop: Crop | undefined): Promise<PhotoView> {
      const accountId = auth.account.id;
      // Refused before the work of decoding when the account is full (checked again under the lock).
      if ((await db.direct.photos.count(accountId)) >= MAX_PHOTOS_PER_ACCOUNT) throw limitReached();
      const processed = await processPhoto(bytes, mediaType, crop);
      if ('refused' in processed) {
        throw processed.refused === 'too_large' ? refuse('photo_too_large', processed.reason) : refuse('photo_unreadable', processed.reason);
      }
      const row = { id: newId('pho'), account_id: accountId, jpeg_64: processed.jpeg[64], jpeg_256: processed.jpeg[256], jpeg_512: processed.jpeg[512], digest: processed.digest, created_at: clock.now() };
      await db.transaction(async (q, tx) => {
        // The signal takes the account row's lock: two uploads at once cannot both pass the count.
        await signal(tx, accountId, 'photos.changed');
        if ((await q.photos.count(accountId)) >= MAX_PHOTOS_PER_ACCOUNT) throw limitReached();
        await q.photos.insert(row);
      });
      return view(row);
    },

    async list(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<PhotoView>> {
      return page((after, size) => db.direct.photos.list(auth.account.id, after, size), cursor, limit, view);
    },

    async get(auth: AuthContext, id: string): Promise<PhotoView> {
      const row = await db.direct.photos.find(auth.account.id, id);
      if (!row) throw notFound();
      return view(row);
    },

    /** DELETE /me/photos/{id}: gone from every field that showed it, and so from every card. */
    async remove(auth: AuthContext, id: string): Promise<void> {
      const accountId = auth.account.id;
      await db.transaction(async (q, tx) => {
        await signal(tx, accountId, 'photos.changed');
        if (!(await q.photos.remove(accountId, id))) throw notFound();
        await removed.run(tx, { accountId, photoId: id });
      });
    },

    /** A photo field's details, when the account holds this photo (a field may show only its owner's photos). */
    async detailsOf(tx: Tx, accountId: string, id: string): Promise<PhotoDetails | undefined> {
      const thumb = await db.in(tx).photos.bytes(id, 64);
      if (thumb?.account_id !== accountId) return undefined;
      return { thumbnail: `data:image/jpeg;base64,${Buffer.from(thumb.bytes).toString('base64')}`, sizes: [...PHOTO_SIZES], photo_tag: thumb.digest };
    },

    /** One size's bytes, its owner and its tag; who may have them is the caller's rule. */
    bytes: (id: string, size: PhotoSize) => db.direct.photos.bytes(id, size),

    /** The 256 px JPEGs of several photos (the PHOTO of a page of vCards), by id. */
    async vcardPhotos(ids: readonly string[]): Promise<Map<string, Buffer>> {
      const rows = await db.direct.photos.bytesOf([...new Set(ids)], 256);
      return new Map(rows.map((row) => [row.id, Buffer.from(row.bytes)]));
    },

    /** The export: each photo with its three sizes, base64. */
    async *exportPages(accountId: string): AsyncIterable<unknown[]> {
      for await (const rows of keysetPages((after, limit) => db.direct.photos.fullList(accountId, after, limit), (row) => row, 20)) {
        yield rows.map((row) => ({ ...view(row), jpeg: Object.fromEntries(PHOTO_SIZES.map((size) => [String(size), Buffer.from(row[`jpeg_${size}`]).toString('base64')])) }));
      }
    },
    async erase(tx: Tx, accountId: string): Promise<void> {
      await db.in(tx).photos.removeAll(accountId);
    },
  };
}

function limitReached() {
  return refuse('photo_limit', `an account keeps at most ${MAX_PHOTOS_PER_ACCOUNT} photos; delete one first`);
}

export type PhotoService = ReturnType<typeof createPhotoService>;
