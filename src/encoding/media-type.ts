// Parsing media types and Accept headers, and choosing what to answer with.

export interface MediaType {
  type: string;
  subtype: string;
  /** Parameters, lower-cased names (q excluded). */
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(text: string): MediaType | undefined {
  const [essence = '', ...rawParams] = text.split(';');
  const slash = essence.indexOf('/');
  if (slash <= 0) return undefined;
  const type = essence.slice(0, slash).trim().toLowerCase();
  const subtype = essence.slice(slash + 1).trim().toLowerCase();
  if (type === '' || subtype === '') return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) continue;
    const key = raw.slice(0, eq).trim().toLowerCase();
    const value = raw.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
    else params[key] = value;
  }
  return { type, subtype, params, q };
}

/**
 * Accept header entries in the order upstream tries them (goautoneg's): by q, a
 * specific type before `*`, a specific subtype before `*`, else header order. Entries
 * with q=0 are kept: they refuse a type (callers skip them as choices). An empty header
 * means any.
 */
export function parseAccept(header: string | undefined): MediaType[] {
  if (header === undefined || header.trim() === '') return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const entries = header.split(',').map(parseMediaType).filter((m): m is MediaType => m !== undefined);
  // goautoneg's comparison, applied by insertion sort as Go's sort does for short slices.
  const less = (a: MediaType, b: MediaType) =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subtype !== '*' && b.subtype === '*');
  for (let i = 1; i < entries.length; i++) {
    for (let j = i; j > 0 && less(entries[j]!, entries[j - 1]!); j--) {
      [entries[j], entries[j - 1]] = [entries[j - 1]!, entries[j]!];
    }
  }
  return entries;
}

export function essenceOf(m: MediaType): string {
  return `${m.type}/${m.subtype}`;
}
