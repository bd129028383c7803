// Revision rules shared by the backends, following etcd's MVCC store.

import { compacted, futureRevision } from './errors.ts';

/**
 * A new store is at revision 1, like etcd, and the first write gets revision 2.
 * So no list of an empty store answers resourceVersion "0", which clients send to
 * mean "any version".
 */
export const INITIAL_REVISION = 1;

/**
 * The revision a read at `requested` sees: unset or 0 means the current one (as in
 * etcd). Below the compacted revision the history is gone; above the current one it
 * does not exist yet.
 */
export function readRevision(requested: number | undefined, current: number, compactedRevision: number): number {
  if (requested === undefined || requested === 0) return current;
  if (requested < compactedRevision) throw compacted(requested, compactedRevision);
  if (requested > current) throw futureRevision(requested, current);
  return requested;
}
