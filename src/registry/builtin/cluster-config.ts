// Cluster configuration types stored and validated but acted on by nothing in Plinth:
// scheduling.k8s.io priorityclasses, node.k8s.io runtimeclasses, discovery.k8s.io
// endpointslices, certificates.k8s.io certificatesigningrequests, flowcontrol schemas and
// priority levels, admission policies and their bindings, apiregistration apiservices and
// resource.k8s.io (dynamic resource allocation) types.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, fieldImmutable, goJson, index, invalid, key } from '../validation/field.ts';
import { canonicalQuantity, isNegative, milliValue, parseQuantity } from '../../api/quantity.ts';
import { isIntegerResourceName, validateContainerResourceName } from './resource-names.ts';
import { nodeLabelDeprecatedMessage } from './node-label-warnings.ts';
import { isDNS1123Label } from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { mutatingBindingStrategy, mutatingPolicyStrategy, validatingBindingStrategy, validatingPolicyStrategy } from './admission-policies.ts';
import { arrayAt, objectAt, objectsAt, stringAt } from './object.ts';
import { validateTolerations } from './pod-scheduling.ts';
import { resourceClaimStrategy, resourceClaimTemplateStrategy } from './resource-claims.ts';
import { deviceClassStrategy, resourceSliceStrategy } from './resource-slices.ts';
import { builtinType } from './skeleton.ts';

export { priorityClassesType } from './priorityclasses.ts';
export { flowSchemasType, priorityLevelConfigurationsType } from './flowcontrol.ts';
export { apiServicesType } from './apiservices.ts';

const runtimeClassColumns: TableColumn[] = [
  nameColumn,
  column('Handler', (rc) => stringAt(rc, 'handler'), { description: 'Handler specifies the underlying runtime the RuntimeClass uses' }),
  ageColumn,
];

/**
 * A RuntimeClass's overhead, checked as upstream checks it: as a container's resource limits
 * (ValidateContainerResourceRequirements), so the paths read `overhead.limits[cpu]`.
 */
function validateOverhead(overhead: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [name, raw] of Object.entries(objectAt(overhead, 'podFixed') ?? {})) {
    const path = key('overhead.limits', name);
    appendAll(causes, validateContainerResourceName(name, path));
    const q = parseQuantity(raw);
    if (q === undefined) continue;
    // The bad value is the Quantity, written canonically.
    if (isNegative(q)) causes.push(invalid(path, canonicalQuantity(raw), 'must be greater than or equal to 0'));
    if (isIntegerResourceName(name) && milliValue(q) % 1000n !== 0n) causes.push(invalid(path, canonicalQuantity(raw), 'must be an integer'));
  }
  return causes;
}

/** Tolerations as pods have them, and no two alike in key, operator, value and effect. */
function validateRuntimeClassTolerations(tolerations: unknown[], path: string): StatusCause[] {
  const causes = validateTolerations(tolerations, path);
  const seen = new Set<string>();
  tolerations.forEach((raw, i) => {
    const t = isObject(raw) ? raw : {};
    const listKey = JSON.stringify(['key', 'operator', 'value', 'effect'].map((k) => stringAt(t, k)));
    if (!seen.has(listKey)) {
      seen.add(listKey);
      return;
    }
    // The internal core.Toleration as json.Marshal writes it: Go field names, in order.
    const seconds = typeof t.tolerationSeconds === 'number' ? t.tolerationSeconds : null;
    const rendered = goJson({ Key: stringAt(t, 'key'), Operator: stringAt(t, 'operator'), Value: stringAt(t, 'value'), Effect: stringAt(t, 'effect'), TolerationSeconds: seconds });
    causes.push(duplicate(index(path, i), rendered));
  });
  return causes;
}

/** Upstream's ValidateRuntimeClass: a handler that is a DNS label, the overhead, scheduling's node selector and tolerations. */
function validateRuntimeClass(rc: KubeObject): StatusCause[] {
  const handler = stringAt(rc, 'handler');
  const causes = isDNS1123Label(handler).map((msg) => invalid('handler', handler, msg));
  const overhead = objectAt(rc, 'overhead');
  if (overhead !== undefined) appendAll(causes, validateOverhead(overhead));
  const scheduling = objectAt(rc, 'scheduling');
  if (scheduling !== undefined) {
    appendAll(causes, validateLabels(scheduling.nodeSelector, 'scheduling.nodeSelector'));
    appendAll(causes, validateRuntimeClassTolerations(arrayAt(scheduling, 'tolerations'), 'scheduling.tolerations'));
  }
  return causes;
}

/** Upstream's GetWarningsForRuntimeClass: each deprecated node label the node selector names (the label itself unsaid). */
function runtimeClassWarnings(rc: KubeObject): string[] {
  const selector = objectAt(objectAt(rc, 'scheduling'), 'nodeSelector') ?? {};
  return Object.keys(selector).flatMap((label) => {
    const deprecated = nodeLabelDeprecatedMessage(label);
    return deprecated === undefined ? [] : [`scheduling.nodeSelector: ${deprecated}`];
  });
}

export function runtimeClassesType(): ResourceType {
  return builtinType('node.k8s.io', 'v1', 'runtimeclasses', {
    strategy: {
      warningsOnCreate: runtimeClassWarnings,
      warningsOnUpdate: runtimeClassWarnings,
      validate: validateRuntimeClass,
      validateUpdate(rc, old) {
        const handler = stringAt(rc, 'handler');
        return handler === stringAt(old, 'handler') ? [] : [invalid('handler', handler, fieldImmutable)];
      },
    },
    tableColumns: runtimeClassColumns,
  });
}

/** A policy's ParamKind cell: `apiVersion/kind`, "<unset>" without one. */
function paramKind(policy: KubeObject): string {
  const kind = objectAt(objectAt(policy, 'spec'), 'paramKind');
  return kind === undefined ? '<unset>' : `${stringAt(kind, 'apiVersion')}/${stringAt(kind, 'kind')}`;
}

/** Go's %v of a string slice: `[a b]`. */
const goSlice = (values: unknown[]) => `[${values.map(String).join(' ')}]`;

/** The generated protobuf String() of a metav1.LabelSelector, which upstream prints for a binding's selector. */
function labelSelectorGoString(selector: JsonObject): string {
  const labels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  const pairs = Object.keys(labels).sort().map((k) => `${k}: ${String(labels[k])},`).join('');
  const expressions = objectsAt(selector, 'matchExpressions')
    .map((e) => `LabelSelectorRequirement{Key:${stringAt(e, 'key')},Operator:${stringAt(e, 'operator')},Values:${goSlice(arrayAt(e, 'values'))},},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${pairs}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** A binding's ParamRef cell: `namespace/name` (namespace "*" when unset), the selector, or "<unset>". */
function paramRef(binding: KubeObject): string {
  const ref = objectAt(objectAt(binding, 'spec'), 'paramRef');
  if (ref === undefined) return '<unset>';
  const name = stringAt(ref, 'name');
  if (name !== '') return `${stringAt(ref, 'namespace') || '*'}/${name}`;
  const selector = objectAt(ref, 'selector');
  return selector === undefined ? '<unset>' : labelSelectorGoString(selector);
}

const paramKindColumn = column('ParamKind', paramKind, { description: 'ParamKind specifies the kind of resources used to parameterize this policy' });

/** printers.go's columns of both kinds of policy bindings. */
const policyBindingColumns: TableColumn[] = [
  nameColumn,
  column('PolicyName', (b) => stringAt(objectAt(b, 'spec'), 'policyName'), { description: 'PolicyName indicates the policy definition which the policy binding binded to' }),
  column('ParamRef', paramRef, { description: 'ParamRef indicates the param resource which sets the configration param' }),
  ageColumn,
];

export function admissionPolicyTypes(): ResourceType[] {
  const group = 'admissionregistration.k8s.io';
  return [
    // Policies and bindings alike: a PUT must name the resourceVersion it replaces (AllowUnconditionalUpdate false).
    builtinType(group, 'v1', 'validatingadmissionpolicies', {
      strategy: validatingPolicyStrategy(),
      allowUnconditionalUpdate: false,
      strategyUsesCel: true,
      tableColumns: [
        nameColumn,
        column('Validations', (p) => arrayAt(objectAt(p, 'spec'), 'validations').length, {
          type: 'integer', description: 'Validations indicates the number of validation rules defined in this configuration',
        }),
        paramKindColumn,
        ageColumn,
      ],
    }),
    builtinType(group, 'v1', 'validatingadmissionpolicybindings', { strategy: validatingBindingStrategy(), allowUnconditionalUpdate: false, tableColumns: policyBindingColumns }),
    builtinType(group, 'v1', 'mutatingadmissionpolicies', {
      strategy: mutatingPolicyStrategy(),
      allowUnconditionalUpdate: false,
      strategyUsesCel: true,
      tableColumns: [
        nameColumn,
        column('Mutations', (p) => arrayAt(objectAt(p, 'spec'), 'mutations').length, {
          type: 'integer', description: 'Mutation indicates the number of mutations rules defined in this configuration',
        }),
        paramKindColumn,
        ageColumn,
      ],
    }),
    builtinType(group, 'v1', 'mutatingadmissionpolicybindings', { strategy: mutatingBindingStrategy(), allowUnconditionalUpdate: false, tableColumns: policyBindingColumns }),
  ];
}

/** printers.go's resourceClaimState: deleted, pending (unallocated), allocated and reserved, comma-joined. */
export function resourceClaimState(claim: KubeObject): string {
  const states: string[] = [];
  const deleting = claim.metadata.deletionTimestamp !== undefined && claim.metadata.deletionTimestamp !== null;
  if (deleting) states.push('deleted');
  const status = objectAt(claim, 'status');
  if (objectAt(status, 'allocation') === undefined) {
    if (!deleting) states.push('pending');
  } else {
    states.push('allocated');
    if (arrayAt(status, 'reservedFor').length > 0) states.push('reserved');
  }
  return states.join(',');
}

export function resourceAllocationTypes(): ResourceType[] {
  const group = 'resource.k8s.io';
  return [
    // Upstream prints only Name and Age for classes and claim templates.
    builtinType(group, 'v1', 'deviceclasses', { strategy: deviceClassStrategy(), strategyUsesCel: true, tableColumns: [nameColumn, ageColumn] }),
    builtinType(group, 'v1', 'resourceclaims', {
      strategy: resourceClaimStrategy(),
      strategyUsesCel: true,
      tableColumns: [
        nameColumn,
        column('State', resourceClaimState, { description: 'A summary of the current state (allocated, pending, reserved, etc.).' }),
        ageColumn,
      ],
    }),
    builtinType(group, 'v1', 'resourceclaimtemplates', { strategy: resourceClaimTemplateStrategy(), strategyUsesCel: true, tableColumns: [nameColumn, ageColumn] }),
    builtinType(group, 'v1', 'resourceslices', {
      strategy: resourceSliceStrategy(),
      tableColumns: [
        nameColumn,
        column('Node', (s) => stringAt(objectAt(s, 'spec'), 'nodeName'), {
          description: 'NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.',
        }),
        column('Driver', (s) => stringAt(objectAt(s, 'spec'), 'driver'), {
          description: 'Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.',
        }),
        column('Pool', (s) => stringAt(objectAt(objectAt(s, 'spec'), 'pool'), 'name'), {
          description: 'Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.',
        }),
        ageColumn,
      ],
    }),
  ];
}
