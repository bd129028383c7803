// PEM decoding as Go's encoding/pem decodes: the blocks of a CSR, a certificate, a TLS
// Secret's pair, found in linear time whatever the text holds.

/** One PEM block as Go's pem.Decode reads it: its type, whether it had headers, its bytes, and what follows it. */
export interface PemBlock {
  type: string;
  hasHeaders: boolean;
  der: Buffer;
  /** Where the text after the block starts. */
  rest: number;
}

/** Go's getLine at `at`: the line's text (trailing spaces, tabs and CRs trimmed) and where the next line starts. */
function pemLine(text: string, at: number): [string, number] {
  const newline = text.indexOf('\n', at);
  const line = text.slice(at, newline < 0 ? text.length : newline);
  return [line.replace(/[ \t\r]+$/, ''), newline < 0 ? text.length : newline + 1];
}

/**
 * The first well-formed PEM block of `text` from `from` (bytes as latin1), as Go's
 * encoding/pem Decode finds it: a BEGIN line at the start or after a newline, optional
 * "Key: value" headers, a standard base64 body (spaces, tabs and line breaks ignored) and
 * the matching END line; a malformed candidate is skipped for the next one. Linear in the
 * text: the next END line is looked for once, not again for every candidate before it.
 */
export function pemDecode(text: string, from = 0): PemBlock | undefined {
  let at = from;
  let nextEnd = -1;
  for (;;) {
    if (text.startsWith('-----BEGIN ', at)) {
      at += '-----BEGIN '.length;
    } else {
      const begin = text.indexOf('\n-----BEGIN ', at);
      if (begin < 0) return undefined;
      at = begin + '\n-----BEGIN '.length;
    }
    let typeLine: string;
    [typeLine, at] = pemLine(text, at);
    if (!typeLine.endsWith('-----')) continue;
    const type = typeLine.slice(0, -5);
    let hasHeaders = false;
    for (;;) {
      if (at >= text.length) return undefined;
      const [line, next] = pemLine(text, at);
      if (!line.includes(':')) break;
      hasHeaders = true;
      at = next;
    }
    let endIndex: number;
    let trailerIndex: number;
    if (!hasHeaders && text.startsWith('-----END ', at)) {
      endIndex = at;
      trailerIndex = at + '-----END '.length;
    } else {
      if (nextEnd < at) nextEnd = text.indexOf('\n-----END ', at);
      // No END line after this candidate means none after any later one.
      if (nextEnd < 0) return undefined;
      endIndex = nextEnd;
      trailerIndex = endIndex + '\n-----END '.length;
    }
    const afterTrailer = trailerIndex + type.length + 5;
    if (text.slice(trailerIndex, afterTrailer) !== `${type}-----`) continue;
    if (pemLine(text, afterTrailer)[0] !== '') continue;
    const body = text.slice(at, endIndex);
    // The first character base64 cannot hold ends the look early.
    if (/[^A-Za-z0-9+/= \t\r\n]/.test(body)) continue;
    const encoded = body.replace(/[ \t\r\n]/g, '');
    if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) continue;
    return { type, hasHeaders, der: Buffer.from(encoded, 'base64'), rest: pemLine(text, afterTrailer)[1] };
  }
}

/** Every block of `text` in order, as repeated pem.Decode calls find them. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (let block = pemDecode(text); block !== undefined; block = pemDecode(text, block.rest)) blocks.push(block);
  return blocks;
}
