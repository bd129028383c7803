// core/v1 namespaces, after kubernetes pkg/registry/core/namespace/strategy.go.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, index, invalid } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { validateKubeFinalizerName, validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { keepOldStatus } from './common.ts';
import { clone, type JsonObject } from '../../api/json.ts';
import { arrayAt, ensureObject, objectAt, stringAt } from './object.ts';
import { namespaceColumns } from './table-columns.ts';

/** The label every namespace carries with its own name (SetDefaults_Namespace). */
const namespaceNameLabel = 'kubernetes.io/metadata.name';

function setNameLabel(ns: KubeObject): void {
  const name = ns.metadata.name;
  if (name === undefined || name === '') return;
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), [namespaceNameLabel]: name };
}

/**
 * spec.finalizers, each name a qualified one and, without a domain, a standard one
 * (upstream's validateFinalizerName), reported entry by entry: at spec.finalizers by
 * ValidateNamespace, at each entry's index by ValidateNamespaceFinalizeUpdate.
 */
function validateSpecFinalizers(ns: KubeObject, indexed: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  arrayAt(objectAt(ns, 'spec'), 'finalizers').forEach((f, i) => {
    const name = String(f);
    const path = indexed ? index('spec.finalizers', i) : 'spec.finalizers';
    for (const msg of isQualifiedName(name)) causes.push(invalid(path, name, msg));
    appendAll(causes, validateKubeFinalizerName(name, path));
  });
  return causes;
}

const namespaceStrategy: Strategy = {
  defaults: setNameLabel,
  ownDelete: true,
  answersPendingDelete: true,

  prepareForCreate(ns) {
    // Upstream's Canonicalize: a name generated after defaulting gets its label too.
    setNameLabel(ns);
    ns.status = { phase: 'Active' };
    // The "kubernetes" finalizer is required on create; the namespace controller removes it.
    const spec = ensureObject(ns as JsonObject, 'spec');
    const finalizers = arrayAt(spec, 'finalizers').map(String);
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
  },

  prepareForUpdate(ns, old) {
    // spec.finalizers change only through the finalize subresource, status through status.
    const spec = ensureObject(ns as JsonObject, 'spec');
    const oldFinalizers = objectAt(old, 'spec')?.finalizers;
    if (oldFinalizers === undefined) delete spec.finalizers;
    else spec.finalizers = clone(oldFinalizers);
    keepOldStatus(ns, old);
  },

  validate(ns) {
    const causes = validateKubeFinalizerNames(ns.metadata.finalizers, 'metadata.finalizers');
    appendAll(causes, validateSpecFinalizers(ns, false));
    return causes;
  },

  selectableFields(ns) {
    return { 'status.phase': stringAt(objectAt(ns, 'status'), 'phase'), name: ns.metadata.name ?? '' };
  },

  fieldLabels: ['status.phase', 'metadata.name'],

  // Upstream: a namespace with spec.finalizers stays Terminating until the namespace
  // controller has deleted its contents and emptied them through /finalize.
  deletionPending(ns) {
    return arrayAt(objectAt(ns, 'spec'), 'finalizers').length > 0;
  },

  markDeleting(ns) {
    ns.status = { ...(objectAt(ns, 'status') ?? {}), phase: 'Terminating' };
  },

  // Upstream's namespace REST Delete sets the garbage-collection finalizers on the first
  // delete only, by its own rule: orphanDependents=false asks for foreground deletion, and
  // without options the finalizers stay as they are.
  deletionFinalizers(ns, opts) {
    const current = ns.metadata.finalizers ?? [];
    if (ns.metadata.deletionTimestamp !== undefined) return current;
    const orphan = opts.orphanDependents ?? (opts.propagationPolicy === undefined ? current.includes('orphan') : opts.propagationPolicy === 'Orphan');
    const foreground = opts.orphanDependents !== undefined ? !opts.orphanDependents
      : opts.propagationPolicy === undefined ? current.includes('foregroundDeletion') : opts.propagationPolicy === 'Foreground';
    const next = current.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    if (orphan) next.push('orphan');
    if (foreground) next.push('foregroundDeletion');
    return next;
  },

  subresources: {
    status: {
      prepareForUpdate(ns, old) {
        setNameLabel(ns);
        if (old.spec === undefined) delete ns.spec;
        else ns.spec = clone(old.spec);
      },
      validateUpdate(ns) {
        const phase = stringAt(objectAt(ns, 'status'), 'phase');
        if (ns.metadata.deletionTimestamp === undefined || ns.metadata.deletionTimestamp === null) {
          if (phase !== 'Active') return [invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
        } else if (phase !== 'Terminating') {
          return [invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
        }
        return [];
      },
    },
    finalize: {
      prepareForUpdate(ns, old) {
        setNameLabel(ns);
        keepOldStatus(ns, old);
      },
      validateUpdate(ns) {
        return validateSpecFinalizers(ns, true);
      },
    },
  },
};

// Namespaces cannot be deleted as a collection.
export function namespacesType(): ResourceType {
  return builtinType('', 'v1', 'namespaces', {
    subresources: ['status', 'finalize'],
    strategy: namespaceStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-label',
    tableColumns: namespaceColumns,
  });
}
