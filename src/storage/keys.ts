// Key ranges. Keys are compared as strings, which for the ASCII keys Kubernetes
// uses (`/registry/...`) is the same order as etcd's and SQLite's bytewise order.

/**
 * The smallest string greater than every string that starts with `prefix`, or
 * undefined when there is none (empty prefix: the whole key space). Like etcd's
 * GetPrefixRangeEnd: bump the last code unit that can be bumped, drop what follows.
 */
function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return undefined;
}

/** The keys a list reads: under `prefix`, and strictly after `startAfter` when that is inside the range. */
export interface KeyRange {
  /** Inclusive lower bound. */
  from: string;
  /** Exclusive lower bound, when it is tighter than `from`. */
  after: string | undefined;
  /** Exclusive upper bound; undefined: no upper bound. */
  end: string | undefined;
}

export function listRange(prefix: string, startAfter: string | undefined): KeyRange {
  const after = startAfter !== undefined && startAfter >= prefix ? startAfter : undefined;
  return { from: prefix, after, end: prefixEnd(prefix) };
}
