// rbac.authorization.k8s.io/v1 roles, rolebindings, clusterroles and clusterrolebindings,
// stored and validated as upstream's pkg/apis/rbac/validation (auth/rbac.ts authorizes with
// them, auth/escalation.ts guards their writes), with v1's defaults and the printer's
// columns. Names are path segments, as upstream's ValidateRBACName.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, createdAtColumn, nameColumn } from '../table-columns.ts';
import { appendAll, goJson, type GoValue, index, invalid, notSupported, required } from '../validation/field.ts';
import { isDNS1123Subdomain, validateName } from '../validation/names.ts';
import { arrayAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';
import { builtinType } from './skeleton.ts';

const group = 'rbac.authorization.k8s.io';

/** Upstream's ValidatePolicyRule: verbs, then either non-resource URLs (cluster roles only) or API groups and resources. */
export function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (arrayAt(rule, 'verbs').length === 0) causes.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = arrayAt(rule, 'nonResourceURLs');
  if (urls.length > 0) {
    if (namespaced) causes.push(invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (arrayAt(rule, 'apiGroups').length > 0 || arrayAt(rule, 'resources').length > 0 || arrayAt(rule, 'resourceNames').length > 0) {
      causes.push(invalid(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if (arrayAt(rule, 'apiGroups').length === 0) causes.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (arrayAt(rule, 'resources').length === 0) causes.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}

function validateRules(obj: KubeObject, namespaced: boolean): StatusCause[] {
  return arrayAt(obj, 'rules').flatMap((rule, i) => validatePolicyRule(rule, namespaced, index('rules', i)));
}

/**
 * ClusterRole's aggregationRule: at least one selector, each a valid label selector. A
 * selector that is not also fails its conversion to a labels.Selector, which upstream
 * reports once more on the selector itself, with the nil selector as the value.
 */
function validateAggregationRule(role: KubeObject): StatusCause[] {
  const rule = role.aggregationRule;
  if (rule === undefined || rule === null) return [];
  const selectors = arrayAt(rule, 'clusterRoleSelectors');
  const path = 'aggregationRule.clusterRoleSelectors';
  if (selectors.length === 0) return [required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((selector, i) => {
    const causes = validateLabelSelector(isObject(selector) ? selector : {}, index(path, i));
    if (causes.length > 0) causes.push(invalid(index(path, i), null, 'invalid label selector.'));
    return causes;
  });
}

/**
 * Upstream's ValidateRBACName ignores that a generateName is a prefix: "." and ".." are
 * refused there too (the generic name rule checks a path segment's prefix for "/" and "%" only).
 */
function validateGenerateName(obj: KubeObject): StatusCause[] {
  const generateName = obj.metadata.generateName ?? '';
  return generateName === '.' || generateName === '..' ? [invalid('metadata.generateName', generateName, `may not be '${generateName}'`)] : [];
}

/** Upstream's ValidateRoleBindingSubject. */
export function validateSubject(subject: unknown, namespaced: boolean, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(subject, 'name');
  const apiGroup = stringAt(subject, 'apiGroup');
  const kind = stringAt(subject, 'kind');
  if (name === '') causes.push(required(`${path}.name`));
  switch (kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') causes.push(notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && stringAt(subject, 'namespace') === '') causes.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== group) causes.push(notSupported(`${path}.apiGroup`, apiGroup, [group]));
      break;
    default:
      causes.push(notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}

/** Upstream's ValidateRoleBinding / ValidateClusterRoleBinding (a ClusterRoleBinding may only bind a ClusterRole). */
export function validateBinding(binding: KubeObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const roleRef = objectAt(binding, 'roleRef') ?? {};
  const apiGroup = stringAt(roleRef, 'apiGroup');
  if (apiGroup !== group) causes.push(notSupported('roleRef.apiGroup', apiGroup, [group]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  const kind = stringAt(roleRef, 'kind');
  if (!kinds.includes(kind)) causes.push(notSupported('roleRef.kind', kind, kinds));
  const name = stringAt(roleRef, 'name');
  if (name === '') causes.push(required('roleRef.name'));
  else for (const msg of validateName(name, 'path-segment')) causes.push(invalid('roleRef.name', name, msg));
  arrayAt(binding, 'subjects').forEach((subject, i) => appendAll(causes, validateSubject(subject, namespaced, index('subjects', i))));
  return causes;
}

/**
 * v1's SetDefaults_Subject and SetDefaults_(Cluster)RoleBinding: the RBAC group for users,
 * groups and the role reference. A service account's group is "", which a subject's JSON
 * leaves out (`apiGroup,omitempty`).
 */
function defaultBinding(binding: KubeObject): void {
  const roleRef = objectAt(binding, 'roleRef');
  if (roleRef !== undefined && stringAt(roleRef, 'apiGroup') === '') roleRef.apiGroup = group;
  for (const subject of objectsAt(binding, 'subjects')) {
    if (stringAt(subject, 'apiGroup') !== '') continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = group;
    else if (subject.apiGroup === '') delete subject.apiGroup;
  }
}

function roleStrategy(namespaced: boolean): Strategy {
  return {
    validate: (role) => [...validateGenerateName(role), ...validateRules(role, namespaced), ...(namespaced ? [] : validateAggregationRule(role))],
  };
}

function bindingStrategy(namespaced: boolean): Strategy {
  return {
    defaults: defaultBinding,
    validate: (binding) => [...validateGenerateName(binding), ...validateBinding(binding, namespaced)],
    validateUpdate(binding, old) {
      if (semanticEqual(binding.roleRef, old.roleRef)) return [];
      return [invalid('roleRef', goRoleRef(binding.roleRef), 'cannot change roleRef')];
    },
  };
}

/** The internal rbac.RoleRef as json.Marshal writes it. */
function goRoleRef(ref: unknown): GoValue {
  return goJson({ APIGroup: stringAt(ref, 'apiGroup'), Kind: stringAt(ref, 'kind'), Name: stringAt(ref, 'name') });
}

/** rbac.SubjectsStrings: user names, group names and namespace/name of service accounts. */
function subjectsOf(binding: KubeObject, kind: string): string {
  return objectsAt(binding, 'subjects').filter((s) => s.kind === kind)
    .map((s: JsonObject) => (kind === 'ServiceAccount' ? `${stringAt(s, 'namespace')}/${stringAt(s, 'name')}` : stringAt(s, 'name'))).join(', ');
}

function bindingColumns(what: string): TableColumn[] {
  return [
    nameColumn,
    column('Role', (b) => `${stringAt(objectAt(b, 'roleRef'), 'kind')}/${stringAt(objectAt(b, 'roleRef'), 'name')}`, {
      description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    }),
    ageColumn,
    column('Users', (b) => subjectsOf(b, 'User'), { priority: 1, description: `Users in the ${what}` }),
    column('Groups', (b) => subjectsOf(b, 'Group'), { priority: 1, description: `Groups in the ${what}` }),
    column('ServiceAccounts', (b) => subjectsOf(b, 'ServiceAccount'), { priority: 1, description: `ServiceAccounts in the ${what}` }),
  ];
}

const roleColumns: TableColumn[] = [nameColumn, createdAtColumn];

export function rbacTypes(): ResourceType[] {
  const common = { allowCreateOnUpdate: true, nameRule: 'path-segment' as const };
  return [
    builtinType(group, 'v1', 'roles', { ...common, strategy: roleStrategy(true), tableColumns: roleColumns }),
    builtinType(group, 'v1', 'rolebindings', { ...common, strategy: bindingStrategy(true), tableColumns: bindingColumns('roleBinding') }),
    builtinType(group, 'v1', 'clusterroles', { ...common, strategy: roleStrategy(false), tableColumns: roleColumns }),
    builtinType(group, 'v1', 'clusterrolebindings', { ...common, strategy: bindingStrategy(false), tableColumns: bindingColumns('clusterRoleBinding') }),
  ];
}
