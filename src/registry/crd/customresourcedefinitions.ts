// apiextensions.k8s.io/v1 customresourcedefinitions, after apiextensions-apiserver's
// pkg/registry/customresourcedefinition (strategy.go, etcd.go). Serving the resources
// they define is the CRD controller's job (controllers/crd.ts).

import type { KubeObject } from '../../api/index.ts';
const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
import { builtinDefinitions } from '../../schema/builtin/index.ts';
import { schemaRef } from '../../schema/builtin/index.ts';
import { builtinValidation, validate } from '../../schema/validate.ts';
import { keepOldStatus, nowTimestamp } from '../builtin/common.ts';
import { builtinType } from '../builtin/skeleton.ts';
import { clone } from '../../api/json.ts';
import { semanticEqual } from '../builtin/object.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { recordStorageVersion, setCustomResourceDefinitionDefaults } from './defaults.ts';
import { setCondition } from './conditions.ts';
import { formatWarningsOnCreate, formatWarningsOnUpdate } from './format-warnings.ts';
import { garbageCollectionFinalizers } from '../deletion.ts';
import {
  cleanupFinalizer, crdGroup, crdVersion, type CustomResourceDefinition,
} from './types.ts';
import {
  validateCustomResourceDefinition, validateCustomResourceDefinitionStatus, validateCustomResourceDefinitionUpdate,
} from './validation.ts';

const crdSchemaRef = { $ref: schemaRef(`${APIEXTENSIONS}CustomResourceDefinition`) };

/**
 * Fields of the wrong JSON type: the Store refuses those first, checking the body against
 * the CRD's schema (upstream refuses them when decoding); the CRD's own rules then have
 * nothing to add about fields they cannot read.
 */
function hasTypeErrors(obj: KubeObject): boolean {
  return validate(builtinDefinitions, crdSchemaRef, obj, builtinValidation).some((c) => c.reason === 'FieldValueTypeInvalid');
}

function customResourceDefinitionStrategy(): Strategy {
  return {
    ownDelete: true,

    defaults(obj) {
      setCustomResourceDefinitionDefaults(obj as CustomResourceDefinition);
    },

    prepareForCreate(obj) {
      const crd = obj as CustomResourceDefinition;
      // Status is the server's: acceptedNames and conditions come from the CRD controller.
      crd.status = { acceptedNames: { plural: '', kind: '' } };
      crd.metadata.generation = 1;
      recordStorageVersion(crd);
    },

    prepareForUpdate(obj, old) {
      const crd = obj as CustomResourceDefinition;
      keepOldStatus(crd, old);
      const generation = old.metadata.generation ?? 0;
      crd.metadata.generation = semanticEqual(crd.spec, old.spec) ? generation : generation + 1;
      recordStorageVersion(crd);
    },

    // Upstream validates an update with ValidateCustomResourceDefinitionUpdate alone (validateUpdate).
    validate(obj, old) {
      if (old !== undefined || hasTypeErrors(obj)) return [];
      return validateCustomResourceDefinition(obj as CustomResourceDefinition);
    },

    validateUpdate(obj, old) {
      if (hasTypeErrors(obj)) return [];
      return validateCustomResourceDefinitionUpdate(obj as CustomResourceDefinition, old as CustomResourceDefinition);
    },

    warningsOnCreate: (obj) => formatWarningsOnCreate(obj.spec),
    warningsOnUpdate: (obj, old) => formatWarningsOnUpdate(obj.spec, old.spec),

    // Deleting a CRD first deletes its objects: the CRD finalizer (controllers/crd.ts)
    // removes this finalizer once they are gone (upstream adds it in the REST Delete).
    deletionPending(obj) {
      return obj.metadata.deletionTimestamp === undefined || (obj.metadata.finalizers ?? []).includes(cleanupFinalizer);
    },

    // Upstream's CRD Delete: the first delete adds its cleanup finalizer (markDeleting), not
    // the garbage collector's; a later one is the generic store's.
    deletionFinalizers(obj, opts) {
      if (obj.metadata.deletionTimestamp === undefined) return obj.metadata.finalizers ?? [];
      return garbageCollectionFinalizers(obj, opts, 'DeleteDependents');
    },

    markDeleting(obj) {
      const crd = obj as CustomResourceDefinition;
      const finalizers = crd.metadata.finalizers ?? [];
      if (!finalizers.includes(cleanupFinalizer)) crd.metadata.finalizers = [...finalizers, cleanupFinalizer];
      setCondition(crd, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      }, nowTimestamp());
    },

    subresources: {
      status: {
        // Upstream's statusStrategy: spec, labels, annotations and owners stay; finalizers may change.
        prepareForUpdate(obj, old) {
          if (old.spec === undefined) delete obj.spec;
          else obj.spec = clone(old.spec);
          obj.metadata.labels = clone(old.metadata.labels);
          obj.metadata.annotations = clone(old.metadata.annotations);
          obj.metadata.ownerReferences = clone(old.metadata.ownerReferences);
          for (const field of ['labels', 'annotations', 'ownerReferences'] as const) {
            if (obj.metadata[field] === undefined) delete obj.metadata[field];
          }
        },
        validateUpdate(obj) {
          return validateCustomResourceDefinitionStatus(obj as CustomResourceDefinition);
        },
      },
    },
  };
}

/** The customresourcedefinitions resource. */
export function customResourceDefinitionsType(): ResourceType {
  return builtinType(crdGroup, crdVersion, 'customresourcedefinitions', {
    strategy: customResourceDefinitionStrategy(),
    // A CRD's validation rules are compiled when it is written (validation.ts).
    strategyUsesCel: true,
    allowUnconditionalUpdate: false,
  });
}
