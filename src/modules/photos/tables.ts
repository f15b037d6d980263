/** The sizes every photo is kept in, square, in pixels (PRODUCT §2): one column each. */
export const PHOTO_SIZES = [64, 256, 512] as const;
export type PhotoSize = (typeof PHOTO_SIZES)[number];

/** Photos (025-photos): three JPEG squares the server made, never the upload. */
export interface PhotosTable {
  id: string;
  account_id: string;
  jpeg_64: Buffer;
  jpeg_256: Buffer;
  jpeg_512: Buffer;
  digest: string;
  created_at: number;
}
