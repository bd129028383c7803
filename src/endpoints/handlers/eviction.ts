// POST of an Eviction to pods/eviction, decoded and checked in the order of upstream's create handler and EvictionREST.
import { badRequest, type KubeObject } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { addWarning } from '../../api/request-context.ts';
import { clone } from '../../api/json.ts';
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

/** pods/eviction takes a policy/v1 Eviction, and policy/v1beta1's (its AcceptsGroupVersion). */
const evictionTarget = { group: 'policy', version: 'v1', kind: 'Eviction', accepts: ['policy/v1beta1'] };

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
    // A body of another version or kind is refused as the create handler's decoding into an Eviction refuses it.
    cbor: scope.cbor, kind: 'Eviction', metadataOfVersion: 'v1', schemeType: evictionTarget, findDuplicates: directive !== 'Ignore',
  });
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
