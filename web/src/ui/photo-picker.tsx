// Adding a photo: pick a picture, choose the square that shows (zoom and move), and keep it. The
// server keeps only its own square JPEGs of it (no location or camera data); the new photo becomes
// a detail that profiles may show, like a phone number.
import { useEffect, useState } from 'preact/hooks';
import { client } from '../core/client.js';
import { FormError, useAction } from './form.js';

const ACCEPTED = 'image/jpeg,image/png,image/webp,image/avif';

interface Picked {
  file: File;
  url: string;
  width: number;
  height: number;
}

/** The square kept, in pixels of the upright picture (what ?crop= takes). */
function square(picked: Picked, zoom: number, across: number, down: number) {
  const shorter = Math.min(picked.width, picked.height);
  const size = Math.max(32, Math.round(shorter * (1 - 0.8 * (zoom / 100))));
  return { size, x: Math.round(((picked.width - size) * across) / 100), y: Math.round(((picked.height - size) * down) / 100) };
}

export function PhotoPicker({ onDone }: { onDone: () => void }) {
  const [picked, setPicked] = useState<Picked | undefined>(undefined);
  const [unreadable, setUnreadable] = useState(false);
  const [zoom, setZoom] = useState(0);
  const [across, setAcross] = useState(50);
  const [down, setDown] = useState(50);
  useEffect(() => () => picked && URL.revokeObjectURL(picked.url), [picked]);

  function choose(file: File | undefined) {
    setUnreadable(false);
    if (!file) return;
    const url = URL.createObjectURL(file);
    const image = new Image();
    // The browser turns the picture upright as the server will (EXIF orientation), so sizes agree.
    image.onload = () => setPicked({ file, url, width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => (URL.revokeObjectURL(url), setUnreadable(true));
    image.src = url;
  }

  const keep = useAction(async () => {
    const crop = square(picked!, zoom, across, down);
    const photo = await client.photos.upload(picked!.file, { type: picked!.file.type, crop });
    await client.request('POST', '/me/fields', { body: { type: 'photo', value: { photo_id: photo.id } } });
    onDone();
  }, { done: 'Photo added. Choose in a profile who sees it.' });

  if (!picked) {
    return (
      <div class="photo-crop">
        <label>
          Choose a picture
          <input type="file" accept={ACCEPTED} onChange={(event) => choose((event.currentTarget as HTMLInputElement).files?.[0])} />
        </label>
        {unreadable ? <p class="msg error" role="alert">This picture cannot be opened. Pick a JPEG, PNG, WebP or AVIF photo.</p> : null}
        <div class="actions"><button type="button" onClick={onDone}>Cancel</button></div>
      </div>
    );
  }
  const { size, x, y } = square(picked, zoom, across, down);
  const frame = {
    backgroundImage: `url(${picked.url})`,
    backgroundSize: `${(picked.width / size) * 100}% ${(picked.height / size) * 100}%`,
    backgroundPosition: `${picked.width > size ? (x / (picked.width - size)) * 100 : 0}% ${picked.height > size ? (y / (picked.height - size)) * 100 : 0}%`,
  };
  return (
    <div class="photo-crop">
      <div class="frame" role="img" aria-label="The part of the picture your card shows" style={frame} />
      <label>Zoom<input type="range" min={0} max={100} value={zoom} onInput={(e) => setZoom(Number((e.currentTarget as HTMLInputElement).value))} /></label>
      {picked.width > size ? <label>Left and right<input type="range" min={0} max={100} value={across} onInput={(e) => setAcross(Number((e.currentTarget as HTMLInputElement).value))} /></label> : null}
      {picked.height > size ? <label>Up and down<input type="range" min={0} max={100} value={down} onInput={(e) => setDown(Number((e.currentTarget as HTMLInputElement).value))} /></label> : null}
      <FormError action={keep} />
      <div class="actions">
        <button type="button" class="primary" disabled={keep.busy} onClick={() => void keep.run()}>Use this photo</button>
        <button type="button" onClick={() => setPicked(undefined)}>Choose another</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
    </div>
  );
}
