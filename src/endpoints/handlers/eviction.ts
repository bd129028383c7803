// POST of an Eviction to pods/eviction, decoded and checked in the order of upstream's create handler and EvictionREST.
import { badRequest, parseGroupVersion, type KubeObject } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { addWarning } from '../../api/request-context.ts';
import { clone } from '../../api/json.ts';
import { servedKinds } from '../../encoding/protobuf/roots.ts';
import { checkEvictionName, checkEvictionNamespace, evictPod, propagateDryRun } from '../../registry/eviction.ts';
import { strictDecodingErrors, strictDecodingMessage } from '../../registry/field-validation.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { builtinDefinitions, prune, schemaRef } from '../../schema/index.ts';
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { writeOptions } from '../query.ts';
import { decodeDeleteOptions } from './delete.ts';
import type { RequestScope } from './scope.ts';

/** The scheme kube-apiserver decodes built-in bodies with, as its decoding errors name it. */
const legacyScheme = 'pkg/api/legacyscheme/scheme.go:30';

/** metav1's unversioned kinds: registered whatever the group version says (their Go types). */
const unversionedKinds: Readonly<Record<string, string>> = {
  Status: 'v1.Status', APIVersions: 'v1.APIVersions', APIGroupList: 'v1.APIGroupList', APIGroup: 'v1.APIGroup', APIResourceList: 'v1.APIResourceList',
};

/** What metav1.AddToGroupVersion registers in each group version of the scheme. */
const groupVersionKinds: Readonly<Record<string, string>> = {
  WatchEvent: 'v1.WatchEvent', ListOptions: 'v1.ListOptions', GetOptions: 'v1.GetOptions', DeleteOptions: 'v1.DeleteOptions',
  CreateOptions: 'v1.CreateOptions', UpdateOptions: 'v1.UpdateOptions', PatchOptions: 'v1.PatchOptions',
};

/** Group versions the legacy scheme holds besides the served ones: policy/v1beta1, whose Eviction pods/eviction takes. */
const unservedKinds: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'policy/v1beta1': { Eviction: 'v1beta1.Eviction', PodDisruptionBudget: 'v1beta1.PodDisruptionBudget', PodDisruptionBudgetList: 'v1beta1.PodDisruptionBudgetList' },
};

/** Groups served from other schemes than kube-apiserver's (apiextensions-apiserver's, kube-aggregator's). */
const otherSchemes = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** The Go type the legacy scheme decodes (group version, kind) into; undefined when it has none. */
function schemeType(group: string, version: string, kind: string): string | undefined {
  if (Object.hasOwn(unversionedKinds, kind)) return unversionedKinds[kind];
  if (otherSchemes.has(group)) return undefined;
  const groupVersion = group === '' ? version : `${group}/${version}`;
  const kinds = Object.hasOwn(servedKinds, groupVersion) ? servedKinds[groupVersion]! : Object.hasOwn(unservedKinds, groupVersion) ? unservedKinds[groupVersion]! : undefined;
  if (kinds === undefined) return undefined;
  if (Object.hasOwn(groupVersionKinds, kind)) return groupVersionKinds[kind];
  // The message names are <group>.<version>.<Kind>; the Go type is <package (the version)>.<Kind>.
  return Object.hasOwn(kinds, kind) ? kinds[kind]!.split('.').slice(-2).join('.') : undefined;
}

/**
 * A body of another version or kind than policy/v1 or v1beta1 Eviction, refused as the
 * create handler's decoding into an Eviction refuses it (400): what the body leaves out is
 * the URL's policy/v1 Eviction (json.go's gvkWithDefaults); a group without a version is
 * missing its apiVersion; a kind the scheme knows decodes and has no conversion; any other
 * is not registered. policy/__internal decodes into the Eviction itself, and then is not an
 * accepted version.
 */
function evictionTypeError(eviction: KubeObject, body: Uint8Array): string | undefined {
  const kind = eviction.kind !== undefined && eviction.kind !== '' ? eviction.kind : 'Eviction';
  // An apiVersion of more than one '/' was refused in decoding already.
  let { group, version } = parseGroupVersion(eviction.apiVersion ?? '') ?? { group: '', version: '' };
  if (version === '' && (group === '' || group === 'policy')) [group, version] = ['policy', 'v1'];
  const cannotHandle = (why: string) => `${kind} in version ${goQuote(version)} cannot be handled as a Eviction: ${why}`;
  if (version === '') return cannotHandle(`Object 'apiVersion' is missing in '${Buffer.from(body).toString('utf8')}'`);
  if (group === 'policy' && kind === 'Eviction') {
    if (version === 'v1' || version === 'v1beta1') return undefined;
    if (version === '__internal') return 'the API version in the data (policy/__internal) does not match the expected API version (policy/v1)';
  }
  const goType = schemeType(group, version, kind);
  if (goType !== undefined) return cannotHandle(`converting (${goType}) to (policy.Eviction): unknown conversion`);
  if (version === '__internal') return cannotHandle(`no kind ${goQuote(kind)} is registered for the internal version of group ${goQuote(group)} in scheme ${goQuote(legacyScheme)}`);
  return cannotHandle(`no kind ${goQuote(kind)} is registered for version ${goQuote(group === '' ? version : `${group}/${version}`)} in scheme ${goQuote(legacyScheme)}`);
}

const evictionSchema = { $ref: schemaRef('io.k8s.api.policy.v1.Eviction') };

/**
 * Field validation of the Eviction as decoded: under Strict its unknown and duplicate fields
 * are the strict decoding error (400, in the decoder's words); under Warn, a warning each.
 */
function strictEvictionError(eviction: KubeObject, directive: string, duplicateFields: readonly string[]): string | undefined {
  // `eviction` is a copy of the body: pruning reads it, and may change what it does not know.
  if (directive === 'Ignore') return undefined;
  const unknownFields = prune(builtinDefinitions, evictionSchema, eviction, { isResourceRoot: true, keepUnknown: true, goValue: true });
  const errors = strictDecodingErrors(duplicateFields, unknownFields);
  if (errors.length === 0) return undefined;
  if (directive === 'Strict') return strictDecodingMessage(errors);
  for (const error of errors) addWarning(error);
  return undefined;
}

/**
 * POST pods/{name}/eviction with a policy/v1 (or v1beta1) Eviction: 201 and a Success
 * Status when the pod is deleted; 404 for a missing pod, 429 when a disruption budget
 * forbids it. In upstream's order: the query's CreateOptions (422), the body decoded (400),
 * its namespace (400), mutating admission, its name (400), the dry runs reconciled (500),
 * validating admission, then the eviction. Admission sees a CREATE of pods/eviction whose
 * dryRun is the request's.
 */
export async function evictionHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, served } = scope;
  const { dryRun: requestDryRun, directive } = writeOptions(scope.query, 'CreateOptions');
  const body = await readBody(scope.req);
  const { object: eviction, duplicateFields } = await decodeObjectBody(scope.req.headers['content-type'], body, {
    cbor: scope.cbor, kind: 'Eviction', metadataOfVersion: 'v1', findDuplicates: directive !== 'Ignore',
  });
  const typeError = evictionTypeError(eviction, body);
  if (typeError !== undefined) throw badRequest(typeError);
  const version = eviction.apiVersion?.split('/')[1] || 'v1';
  // The fields as sent, for field validation: decoding drops what DeleteOptions does not know.
  const asSent = directive === 'Ignore' ? eviction : clone(eviction);
  // Upstream decodes the deleteOptions with the Eviction: a value of the wrong type is a 400 before anything is done.
  if (eviction.deleteOptions === undefined || eviction.deleteOptions === null) delete eviction.deleteOptions;
  else eviction.deleteOptions = decodeDeleteOptions(eviction.deleteOptions, { kind: 'Eviction', version, field: 'deleteOptions' });
  const strictError = strictEvictionError(asSent, directive, duplicateFields);
  if (strictError !== undefined) throw badRequest(`Eviction in version ${goQuote(version)} cannot be handled as a Eviction: ${strictError}`);
  eviction.apiVersion = `policy/${version}`;
  eviction.kind = 'Eviction';
  checkEvictionNamespace(eviction, info.namespace);

  const attrs = {
    operation: 'CREATE' as const,
    group: served.type.group,
    version: served.type.version,
    resource: served.type.resource,
    subresource: 'eviction',
    kind: 'Eviction',
    kindGroupVersion: { group: 'policy', version: 'v1' },
    namespace: info.namespace,
    name: info.name,
    object: eviction,
    oldObject: undefined,
    dryRun: requestDryRun,
    namespaced: true,
  };
  await served.store.admission.admit(attrs);
  checkEvictionName(eviction, info.name);
  const options = propagateDryRun(eviction, scope.query.getAll('dryRun'));
  await served.store.admission.validate(attrs);

  const status = await evictPod(registry, served.store, info.namespace, info.name, options);
  await writeAnswer(scope, 201, status);
}
