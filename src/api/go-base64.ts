// Base64 as Go's encoding/json reads a []byte field (a Secret's data, a webhook's
// caBundle): base64.StdEncoding, which wants padding, takes only the standard alphabet,
// skips \r and \n anywhere, and ignores non-zero bits after the last byte. Its error names
// the byte offset (in the UTF-8 text) where decoding failed; clients see that text in the
// 400 answer, so the offset is found the same way.

const pad = 0x3d; // '='
const cr = 0x0d;
const lf = 0x0a;

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const decodeMap = new Int8Array(256).fill(-1);
for (let i = 0; i < alphabet.length; i++) decodeMap[alphabet.charCodeAt(i)] = i;

/** Go's base64.CorruptInputError text. */
function illegalBase64(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

/**
 * The bytes `text` encodes, or the offset Go's StdEncoding.Decode reports as corrupt.
 * Follows Go's quantum-by-quantum decoding (its fast paths fall back to it on any
 * irregular byte, so the offsets are this loop's).
 */
export function decodeGoBase64(text: string): { bytes: Buffer; corruptAt?: undefined } | { bytes?: undefined; corruptAt: number } {
  const src = Buffer.from(text, 'utf8');
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const quantum = [0, 0, 0, 0];
    let dlen = 4;
    let corruptAt: number | undefined;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { bytes: Buffer.from(out) };
        // Input ends inside a quantum: padding was due.
        return { corruptAt: si - j };
      }
      const c = src[si]!;
      si++;
      const value = decodeMap[c]!;
      if (value >= 0) {
        quantum[j] = value;
        continue;
      }
      if (c === lf || c === cr) {
        j--;
        continue;
      }
      if (c !== pad) return { corruptAt: si - 1 };
      // Padding: only after two or three characters of a quantum.
      if (j === 0 || j === 1) return { corruptAt: si - 1 };
      if (j === 2) {
        // "==" is due; the first '=' is read.
        while (si < src.length && (src[si] === lf || src[si] === cr)) si++;
        if (si === src.length) return { corruptAt: src.length };
        if (src[si] !== pad) return { corruptAt: si - 1 };
        si++;
      }
      while (si < src.length && (src[si] === lf || src[si] === cr)) si++;
      // Anything after the padding is corrupt; Go reports it after writing this quantum.
      if (si < src.length) corruptAt = si;
      dlen = j;
      break;
    }
    const bits = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    if (dlen >= 2) out.push((bits >> 16) & 0xff);
    if (dlen >= 3) out.push((bits >> 8) & 0xff);
    if (dlen === 4) out.push(bits & 0xff);
    if (corruptAt !== undefined) return { corruptAt };
  }
  return { bytes: Buffer.from(out) };
}

/**
 * A []byte field's text as decoding and encoding it again gives it (line breaks dropped,
 * trailing bits cleared), or Go's error for text it cannot decode.
 */
export function canonicalGoBase64(text: string): { value: string; error?: undefined } | { error: string } {
  // What Node's decoder gives back unchanged is canonical, which Go accepts as it is.
  if (Buffer.from(text, 'base64').toString('base64') === text) return { value: text };
  const { bytes, corruptAt } = decodeGoBase64(text);
  return bytes === undefined ? { error: illegalBase64(corruptAt) } : { value: bytes.toString('base64') };
}
