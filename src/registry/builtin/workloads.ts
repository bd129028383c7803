// core/v1 PodTemplates and apps/v1 ControllerRevisions, after kubernetes
// pkg/apis/core/validation (ValidatePodTemplate), pkg/apis/apps/validation
// (ValidateControllerRevision), their strategies in pkg/registry and printers.go's columns.
// The other workloads have files of their own (replicasets.ts, statefulsets.ts, daemonsets.ts).

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, fieldImmutable, goJson, invalid, required, validateNonnegative } from '../validation/field.ts';
import { type JsonObject } from '../../api/json.ts';
import { ensureObject, numberAt, objectAt, objectsAt, semanticEqual } from './object.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod-spec.ts';
import { podTemplateWarnings, whenGenerationChanged } from './pod-warnings.ts';
import { builtinType } from './skeleton.ts';
import { containersColumn, formatLabels, imagesColumn } from './table-columns.ts';

// ---- PodTemplates ----

const podTemplateContainers = (pt: KubeObject) => objectsAt(objectAt(objectAt(pt, 'template'), 'spec'), 'containers');

export const podTemplateColumns: TableColumn[] = [
  nameColumn,
  { ...containersColumn(podTemplateContainers), priority: undefined },
  { ...imagesColumn(podTemplateContainers), priority: undefined },
  column('Pod Labels', (pt) => formatLabels(objectAt(objectAt(objectAt(pt, 'template'), 'metadata'), 'labels')), {
    description: 'The labels for the pod template.',
  }),
];

export function podTemplatesType(): ResourceType {
  return builtinType('', 'v1', 'podtemplates', {
    strategy: {
      // The template gets a pod template's defaults; template changes count generations.
      defaults(pt) {
        defaultPodTemplate(ensureObject(pt as JsonObject, 'template'));
      },
      prepareForCreate(pt) {
        pt.metadata.generation = 1;
      },
      prepareForUpdate(pt, old) {
        const generation = old.metadata.generation ?? 0;
        pt.metadata.generation = semanticEqual(objectAt(pt, 'template'), objectAt(old, 'template')) ? generation : generation + 1;
      },
      validate: (pt, old) => validatePodTemplateSpec(objectAt(pt, 'template'), 'template', objectAt(old, 'template')),
      warningsOnCreate: (pt) => podTemplateWarnings(objectAt(pt, 'template'), 'template'),
      warningsOnUpdate: (pt, old) => whenGenerationChanged(pt, old, () => podTemplateWarnings(objectAt(pt, 'template'), 'template')),
    },
    tableColumns: podTemplateColumns,
  });
}

// ---- ControllerRevisions ----

/** ValidateControllerRevision: data is mandatory, the revision not negative. */
function validateControllerRevision(cr: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = (cr as JsonObject).data;
  if (data === undefined || data === null) causes.push(required('data', 'data is mandatory'));
  appendAll(causes, validateNonnegative(numberAt(cr, 'revision') ?? 0, 'revision'));
  return causes;
}

/** metav1.GetControllerOf, printed as kubectl prints resources: "daemonset.apps/name". */
function controllerOf(cr: KubeObject): string {
  const ref = (cr.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (ref === undefined) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  if (ref.kind === '') return ref.name;
  return `${(group === '' ? ref.kind : `${ref.kind}.${group}`).toLowerCase()}/${ref.name}`;
}

export const controllerRevisionColumns: TableColumn[] = [
  nameColumn,
  column('Controller', controllerOf, { description: 'Controller of the object' }),
  column('Revision', (cr) => numberAt(cr, 'revision') ?? 0, { description: 'Revision indicates the revision of the state represented by Data.' }),
  ageColumn,
];

export function controllerRevisionsType(): ResourceType {
  return builtinType('apps', 'v1', 'controllerrevisions', {
    strategy: {
      validate: validateControllerRevision,
      // Upstream validates the revision a second time on update (its causes repeat), then the
      // data: a runtime.RawExtension, which marshals as the JSON it holds, keys in their order.
      validateUpdate(cr, old) {
        const data = (cr as JsonObject).data;
        const immutable = isDeepStrictEqual(data, (old as JsonObject).data) ? [] : [invalid('data', goJson(data), fieldImmutable)];
        return [...validateControllerRevision(cr), ...immutable];
      },
    },
    tableColumns: controllerRevisionColumns,
  });
}
