// Go's net/url escaping of paths and query components, byte for byte, for what Plinth passes on
// to other servers as upstream's Go code would write it.

/** A byte as Go's escaping writes it: `%` and two upper-case hex digits. */
export function percentEncoded(b: number): string {
  return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
}

function isAlphanumeric(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

/** Go's url.unescape of a path (`query`: of a query component, `+` a space); undefined for a `%` not followed by two hex digits. */
export function goUnescape(text: string, query: boolean): Buffer | undefined {
  const raw = Buffer.from(text, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x25) {
      const pair = raw.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(pair)) return undefined;
      out.push(parseInt(pair, 16));
      i += 2;
    } else out.push(query && b === 0x2b ? 0x20 : b);
  }
  return Buffer.from(out);
}

/** Go's url.escape: a path's bytes (encodePath: unreserved and `$&+,/:;=@` as they are) or a query component's (QueryEscape: unreserved only, a space as `+`). */
export function goEscape(bytes: Buffer, query: boolean): string {
  let out = '';
  for (const b of bytes) {
    const char = String.fromCharCode(b);
    if (isAlphanumeric(b) || '-_.~'.includes(char) || (!query && '$&+,/:;=@'.includes(char))) out += char;
    else if (query && b === 0x20) out += '+';
    else out += percentEncoded(b);
  }
  return out;
}

