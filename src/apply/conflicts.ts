// Apply conflicts and the 409 that reports them, worded like upstream's NewConflictError
// (k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go) so kubectl shows its
// usual "Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas".

import { StatusError } from '../api/errors.ts';
import type { StatusCause } from '../api/types.ts';
import { parseIdentifier } from './managed-fields.ts';
import type { Path } from './field-path.ts';
import { compareStrings, displayPath } from './field-path.ts';
import type { OwnershipConflict } from './updater.ts';

export interface Conflict {
  /** The manager owning the field, as its managedFields entry names it. */
  manager: string;
  operation: 'Apply' | 'Update';
  /** The API version of an Update manager's entry. */
  apiVersion?: string;
  subresource?: string;
  /** The field, as elements (`f:spec`, `f:replicas`). */
  path: Path;
  /** The field as messages show it: `.spec.replicas`, `.spec.containers[name="nginx"].image`. */
  field: string;
  /** The manager's identifier, by which conflicts are grouped and sorted. */
  id: string;
}

/** Conflicts named for people, grouped by manager in identifier order. */
export function describeConflicts(conflicts: readonly OwnershipConflict[]): Conflict[] {
  const sorted = [...conflicts].sort((a, b) => compareStrings(a.manager, b.manager));
  return sorted.map((c) => {
    const info = parseIdentifier(c.manager);
    const out: Conflict = { manager: info.manager, operation: info.operation, path: c.path, field: displayPath(c.path), id: c.manager };
    if (info.apiVersion !== undefined) out.apiVersion = info.apiVersion;
    if (info.subresource !== undefined && info.subresource !== '') out.subresource = info.subresource;
    return out;
  });
}

/** `"kubectl"`, `"kube-controller-manager" using apps/v1`, `"x" with subresource "status"`. */
function printManager(c: Conflict): string {
  let out = JSON.stringify(c.manager);
  if (c.subresource !== undefined) out += ` with subresource ${JSON.stringify(c.subresource)}`;
  if (c.operation === 'Update') out += ` using ${c.apiVersion ?? ''}`;
  return out;
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c)}: ${c.field}`;
  }
  const lines: string[] = [];
  let current: string | undefined;
  for (const c of conflicts) {
    if (c.id !== current) {
      current = c.id;
      lines.push(`conflicts with ${printManager(c)}:`);
    }
    lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * The 409 for apply conflicts, as upstream's NewApplyConflict: reason Conflict, one cause of
 * type FieldManagerConflict per field, and no name or kind in the details.
 */
export function applyConflictError(conflicts: readonly Conflict[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c)}`,
    field: c.field,
  }));
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), { causes });
}
