// A QR code drawn as SVG by the qrcode library, which writes no script and no inline style, so
// the Content-Security-Policy holds. Shared by share links and phone setup.
import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';

export function Qr({ url, label }: { url: string; label: string }) {
  const [svg, setSvg] = useState<string | undefined>(undefined);
  useEffect(() => {
    let left = false;
    void QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then((text) => left || setSvg(text));
    return () => {
      left = true;
    };
  }, [url]);
  return svg
    ? <div class="qr qr-large" role="img" aria-label={label} dangerouslySetInnerHTML={{ __html: svg }} />
    : <div class="qr qr-large" role="img" aria-label={label} />;
}
