// The little CBOR (RFC 8949) a WebAuthn registration needs: unsigned and negative integers, byte
// and text strings, and maps of them (the COSE key, the attestation object). Written out here so
// `@vid/client/testing` needs no dependency; the encoding is the deterministic one (§4.2.1:
// shortest argument, definite lengths), which is what authenticators send.

/** A value this encoder writes: integers, bytes, text, and maps of them. */
export type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

/** §3.1 major types. */
const UNSIGNED = 0, NEGATIVE = 1, BYTES = 2, TEXT = 3, MAP = 5;

/** The head of a data item: major type and argument, in the shortest form (§3, §4.2.1). */
function head(major: number, argument: number): number[] {
  const type = major << 5;
  if (argument < 24) return [type | argument];
  if (argument < 0x100) return [type | 24, argument];
  if (argument < 0x10000) return [type | 25, argument >> 8, argument & 0xff];
  if (argument <= 0xffffffff) return [type | 26, (argument >>> 24) & 0xff, (argument >> 16) & 0xff, (argument >> 8) & 0xff, argument & 0xff];
  throw new RangeError('CBOR: arguments beyond 32 bits are not needed here');
}

function write(value: CborValue, out: number[]): void {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new TypeError('CBOR: only integers are written');
    // §3.1: a negative integer n is written as major type 1 with argument -1 - n.
    out.push(...(value >= 0 ? head(UNSIGNED, value) : head(NEGATIVE, -1 - value)));
  } else if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    out.push(...head(TEXT, bytes.length), ...bytes);
  } else if (value instanceof Uint8Array) {
    out.push(...head(BYTES, value.length), ...value);
  } else {
    out.push(...head(MAP, value.size));
    for (const [key, item] of value) {
      write(key, out);
      write(item, out);
    }
  }
}

/** One CBOR data item. Map entries keep the order given (COSE and WebAuthn examples' order). */
export function encodeCbor(value: CborValue): Uint8Array {
  const out: number[] = [];
  write(value, out);
  return Uint8Array.from(out);
}
