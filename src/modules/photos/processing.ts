import { createHash } from 'node:crypto';
import type SharpModule from 'sharp';
import { PHOTO_SIZES } from './tables.js';
import type { PhotoSize } from './tables.js';

/** What an upload may be (PRODUCT §2): the four formats, at most 10 MiB and 40 megapixels. */
export const PHOTO_LIMITS = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 } as const;
/** The shortest side a photo may have, in pixels. */
const MIN_SIDE = 32;
export const PHOTO_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] as const;

/** libvips' name for each accepted format (AVIF is read by its HEIF loader, with the AV1 codec). */
const FORMAT_OF: Record<(typeof PHOTO_MEDIA_TYPES)[number], string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/avif': 'heif' };

export type ProcessRefusal = { refused: 'unreadable' | 'too_large'; reason: string };
export interface ProcessedPhoto {
  jpeg: Record<PhotoSize, Buffer>;
  digest: string;
}

/** A square in source pixels (after orientation), `?crop=x,y,size`. */
export interface Crop {
  x: number;
  y: number;
  size: number;
}

// libvips (tens of megabytes) is loaded on the first upload, not at start: most nodes of an
// identity service never decode an image. It keeps decoded images in a cache and runs several
// threads per image: an identity service decodes rarely and must stay small, so no cache, one
// thread per image, and at most DECODES images at once (the rest wait their turn).
let loaded: Promise<typeof SharpModule> | undefined;
function libvips(): Promise<typeof SharpModule> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return loaded;
}
const DECODES = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= DECODES) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * Decodes an upload and re-encodes it: orientation applied (EXIF), cropped to a square (the one
 * asked for, else the centre), resized to each size, written as baseline JPEG with no metadata at
 * all (sharp writes none unless told to: no EXIF, GPS, ICC comments or XMP survive). The upload
 * itself is never kept. Anything libvips cannot read fully, or that is not the format it claims,
 * is refused; so is an image past the pixel limit, before its pixels are decoded.
 */
export async function processPhoto(bytes: Buffer, mediaType: (typeof PHOTO_MEDIA_TYPES)[number], crop: Crop | undefined): Promise<ProcessedPhoto | ProcessRefusal> {
  const sharp = await libvips();
  return inTurn(async () => {
    // failOn 'warning': a truncated or corrupt file is refused, not rendered half grey.
    const options = { limitInputPixels: PHOTO_LIMITS.maxPixels, failOn: 'warning' as const, sequentialRead: true };
    let meta: SharpModule.Metadata;
    try {
      // The header alone: the pixel limit is checked below, answered as too large rather than unreadable.
      meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
    } catch (error) {
      return { refused: 'unreadable', reason: reasonOf(error) };
    }
    if (meta.format !== FORMAT_OF[mediaType]) return { refused: 'unreadable', reason: `the image is not ${mediaType.slice(6).toUpperCase()}` };
    if (meta.format === 'heif' && meta.compression !== 'av1') return { refused: 'unreadable', reason: 'only AVIF is accepted of HEIF images' };
    if (!meta.width || !meta.height) return { refused: 'unreadable', reason: 'the image has no size' };
    if (meta.width * meta.height > PHOTO_LIMITS.maxPixels) return { refused: 'too_large', reason: `the image has more than ${PHOTO_LIMITS.maxPixels / 1e6} megapixels` };
    if ((meta.pages ?? 1) > 1) return { refused: 'unreadable', reason: 'an animated or multi-page image is not a photo' };
    // A strip (1×50000) or a dot is not a face: at least MIN_SIDE on the shorter side.
    if (Math.min(meta.width, meta.height) < MIN_SIDE) return { refused: 'unreadable', reason: `the image is smaller than ${MIN_SIDE} px on a side` };
    // Orientations 5-8 swap width and height (EXIF 2.32 §4.6.4, Orientation).
    const swapped = (meta.orientation ?? 1) >= 5;
    const width = swapped ? meta.height : meta.width;
    const height = swapped ? meta.width : meta.height;
    const square = crop ?? { size: Math.min(width, height), x: Math.floor((width - Math.min(width, height)) / 2), y: Math.floor((height - Math.min(width, height)) / 2) };
    if (square.size < 1 || square.x + square.size > width || square.y + square.size > height) {
      return { refused: 'unreadable', reason: `the crop lies outside the ${width}×${height} image` };
    }
    try {
      const upright = await sharp(bytes, options)
        .rotate()
        .extract({ left: square.x, top: square.y, width: square.size, height: square.size })
        // Transparency becomes white, as a contact photo shows on any phone.
        .flatten({ background: '#ffffff' })
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true });
      const jpeg = {} as Record<PhotoSize, Buffer>;
      for (const size of PHOTO_SIZES) {
        jpeg[size] = await sharp(upright.data, { raw: upright.info })
          .resize(size, size, { fit: 'fill', kernel: 'lanczos3' })
          .jpeg({ quality: size === 64 ? 70 : 82, mozjpeg: true, progressive: false, chromaSubsampling: '4:2:0' })
          .toBuffer();
      }
      const digest = createHash('sha256');
      for (const size of PHOTO_SIZES) digest.update(jpeg[size]);
      return { jpeg, digest: digest.digest('base64url').slice(0, 27) };
    } catch (error) {
      return { refused: 'unreadable', reason: reasonOf(error) };
    }
  });
}

/** libvips' message without paths or internals: what was wrong with the file. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return `the image has more than ${PHOTO_LIMITS.maxPixels / 1e6} megapixels`;
  if (/unsupported image format/i.test(message)) return 'the file is not an image of an accepted format';
  if (/premature end|truncated|unexpected end|not enough data|corrupt|invalid/i.test(message)) return 'the image is damaged or cut short';
  return 'the image could not be read';
}
