// Requests to subresources: status, finalize, approval, ephemeralcontainers and resize (the object
// itself), scale, eviction, binding, and the ones that would connect to a kubelet.
import { badRequest, methodNotAllowed, notFound, notFoundPath, StatusError, type KubeObject, type TableColumn } from '../../api/index.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { applyScale, getScale, scaleDecodeError, scaleStrictErrors, updateScale } from '../../registry/scale.ts';
import { strictDecodingMessage, type FieldValidationDirective } from '../../registry/field-validation.ts';
import { addWarning } from '../../api/request-context.ts';
import { column, nameColumn } from '../../registry/table-columns.ts';
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { fieldManagerOf, writeOptions } from '../query.ts';
import { evictionHandler } from './eviction.ts';
import { nodeProxyHandler, podConnectHandler, refuseDryRun } from './connect.ts';
import { podProxyHandler, serviceProxyHandler } from './workload-proxy.ts';
import { podLogHandler } from './pod-log.ts';
import { bindingHandler, bindingType } from './virtual.ts';
import type { RequestScope } from './scope.ts';
import { tokenRequestHandler, type AuthenticationApi } from './authentication.ts';
import { decodePatch } from '../patch-body.ts';
import { applyRequest, decodeApplyConfiguration, isApply, patchKindOf, patchObject, strictPatchError, strictStrategicPatchError } from './patch.ts';

const scaleSchema = 'io.k8s.api.autoscaling.v1.Scale';

/** The methods upstream's proxies (pods, services, nodes) route; any other is 405. */
const proxyMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * Upstream's crdHandler answers a custom resource's subresource it does not serve with a
 * NotFound naming the object, whatever the verb and whether the object exists; a verb its
 * status or scale does not take with MethodNotSupported naming the resource.
 */
function customResourceRefusal(scope: RequestScope, served: boolean): StatusError {
  const gr = scope.served.store.groupResource;
  if (!served) return notFound(gr, scope.info.name);
  const verb = scope.info.verb;
  return new StatusError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${gr.resource}.${gr.group}"`, { group: gr.group, kind: gr.resource });
}

/**
 * Requests to `.../{name}/{subresource}`: status and finalize (the object itself, with
 * the subresource's write rules), scale (an autoscaling/v1 Scale) and eviction (POST of
 * a policy/v1 Eviction). A subresource the type does not serve is 404, a verb it does
 * not take 405, as upstream (with a custom resource's own words: customResourceRefusal).
 */
export async function subresourceHandler(scope: RequestScope, registry: ResourceRegistry, authentication?: AuthenticationApi): Promise<void> {
  const { type } = scope.served;
  const sub = scope.info.subresource;
  if (!type.subresources.includes(sub)) throw type.customResource === true ? customResourceRefusal(scope, false) : notFoundPath();
  const verb = scope.info.verb;
  const method = scope.req.method ?? 'GET';
  switch (sub) {
    case 'status':
      if (verb === 'get') return getObject(scope);
      if (verb === 'update') return updateObject(scope);
      if (verb === 'patch') return patchObject(scope);
      break;
    case 'finalize':
      if (verb === 'update') return updateObject(scope);
      break;
    case 'scale':
      if (verb === 'get') return getScaleObject(scope);
      if (verb === 'update') return updateScaleObject(scope);
      if (verb === 'patch') return patchScale(scope);
      break;
    case 'eviction':
      if (verb === 'create') return evictionHandler(scope, registry);
      break;
    case 'binding':
      if (verb === 'create') return podBinding(scope, registry);
      break;
    case 'token':
      if (verb === 'create' && authentication !== undefined) return tokenRequestHandler(scope, registry, authentication);
      break;
    case 'ephemeralcontainers':
    case 'resize':
    case 'approval':
      if (verb === 'get') return getObject(scope);
      if (verb === 'update') return updateObject(scope);
      if (verb === 'patch') return patchObject(scope);
      break;
    // Upstream routes each of these by method (go-restful): a GET route takes no HEAD.
    case 'log':
      if (method === 'GET') return podLogHandler(scope, registry);
      break;
    case 'exec':
    case 'attach':
    case 'portforward':
      if (method !== 'GET' && method !== 'POST') break;
      refuseDryRun(scope.query);
      return podConnectHandler(scope, registry);
    case 'proxy':
      if (!proxyMethods.has(method) || verb === 'list' || verb === 'watch' || verb === 'deletecollection') break;
      refuseDryRun(scope.query);
      if (type.resource === 'pods') return podProxyHandler(scope, registry);
      if (type.resource === 'services') return serviceProxyHandler(scope, registry);
      return nodeProxyHandler(scope, registry);
    default:
      throw notFoundPath();
  }
  throw type.customResource === true ? customResourceRefusal(scope, true) : methodNotAllowed();
}

/** POST pods/{name}/binding: the Binding names the pod (upstream's BindingREST). */
async function podBinding(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const binding = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'Binding', metadataOfVersion: 'v1', schemeType: bindingType })).object;
  await bindingHandler(scope, registry, binding, scope.info.name, 'pods');
}

/** GET of a status subresource answers the whole object (or its Table row), as upstream. */
async function getObject(scope: RequestScope): Promise<void> {
  const obj = await scope.served.store.get(scope.info.namespace, scope.info.name);
  await writeAnswer(scope, 200, obj);
}

/** A Scale's Table columns (upstream's printScale). */
const scaleTable: { columns: TableColumn[] } = {
  columns: [
    nameColumn,
    column('Desired', (scale) => (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0, { type: 'integer', description: 'replicas is the desired number of instances for the scaled object.' }),
    column('Available', (scale) => (scale.status as { replicas?: number } | undefined)?.replicas ?? 0, { type: 'integer', description: 'replicas is the actual number of observed instances of the scaled object.' }),
  ],
};

async function getScaleObject(scope: RequestScope): Promise<void> {
  const scale = await getScale(scope.served.store, scope.info.namespace, scope.info.name);
  await writeAnswer(scope, 200, scale, { source: scaleTable });
}

/** The body's name and namespace may be omitted but must match the URL (400 otherwise, as upstream's update handler). */
function checkIdentity(scope: RequestScope, obj: KubeObject): void {
  const { name, namespace } = obj.metadata ?? {};
  if (name !== undefined && name !== '' && name !== scope.info.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${scope.info.name})`);
  }
  if (scope.served.type.namespaced && namespace !== undefined && namespace !== '' && namespace !== scope.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

async function updateObject(scope: RequestScope): Promise<void> {
  const { info, served } = scope;
  const { dryRun, directive } = writeOptions(scope.query, 'UpdateOptions');
  const { object: obj, duplicateFields, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat } = await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { findDuplicates: directive !== 'Ignore', cbor: scope.cbor, kind: scope.served.type.kind, version: scope.served.type.version, customResource: scope.served.type.customResource === true });
  checkIdentity(scope, obj);
  const { object } = await served.store.guaranteedUpdate(info.namespace, info.name, obj.metadata.resourceVersion, {
    dryRun, fieldValidation: { directive, duplicateFields }, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat, fieldManager: fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'UpdateOptions'),
  }, () => obj, { createIfMissing: false, subresource: info.subresource, mutateArgument: 'reads', uidPrecondition: true, resourceVersionFromBody: true });
  await writeAnswer(scope, 200, object);
}

async function updateScaleObject(scope: RequestScope): Promise<void> {
  const { info, served } = scope;
  const { dryRun, directive } = writeOptions(scope.query, 'UpdateOptions');
  const { object: body, duplicateFields, floatNumbers } = await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { findDuplicates: directive !== 'Ignore', cbor: scope.cbor, kind: 'Scale' });
  const decodeError = scaleDecodeError(body, floatNumbers) ?? strictScaleError(body, directive, duplicateFields);
  if (decodeError !== undefined) throw badRequest(`Scale in version "v1" cannot be handled as a Scale: ${decodeError}`);
  checkIdentity(scope, body);
  const scale = await updateScale(served.store, info.namespace, info.name, body.metadata.resourceVersion, { dryRun, fieldManager: fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'UpdateOptions') }, () => body);
  await writeAnswer(scope, 200, scale, { source: scaleTable });
}

/**
 * Field validation of a Scale as written: under Strict, the strict decoding error its
 * unknown and duplicate fields make (upstream decodes a Scale with the strict codec too);
 * under Warn, a warning for each. A JSON patch's own errors (its operations') come first.
 */
function strictScaleError(scale: KubeObject, directive: FieldValidationDirective, duplicateFields: readonly string[], patchErrors: readonly string[] = []): string | undefined {
  if (directive === 'Ignore') return undefined;
  const errors = [...patchErrors, ...scaleStrictErrors(scale, duplicateFields)];
  if (errors.length === 0) return undefined;
  if (directive === 'Strict') return strictDecodingMessage(errors);
  for (const error of errors) addWarning(error);
  return undefined;
}

async function patchScale(scope: RequestScope): Promise<void> {
  const { info, served } = scope;
  // The Content-Type first, as upstream (patchObject says why).
  const kind = patchKindOf(scope);
  const { dryRun, directive } = writeOptions(scope.query, 'PatchOptions', { apply: isApply(kind) });
  if (isApply(kind)) {
    const { fieldManager, force, body } = await applyRequest(scope);
    const { value } = await decodeApplyConfiguration(scope, body, kind === 'apply-cbor', directive);
    const scale = await applyScale(served.store, info.namespace, info.name, value, { dryRun, fieldManager, force });
    await writeAnswer(scope, 200, scale, { source: scaleTable });
    return;
  }
  const patch = decodePatch(kind, await readBody(scope.req), {
    schemaName: scaleSchema, groupResource: served.store.groupResource, fieldValidation: directive,
  });
  const strictError = kind === 'strategic' ? strictStrategicPatchError(patch.value) : (message: string, patched: KubeObject) => strictPatchError(message, patched);
  const scale = await updateScale(served.store, info.namespace, info.name, patch.resourceVersion, { dryRun, fieldManager: fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'PatchOptions') },
    (current) => {
      const patched = patch.apply(current) as KubeObject;
      // The patched Scale is decoded as upstream's patcher decodes it: its errors are the patch's 422.
      const decodeError = scaleDecodeError(patched, patch.floatNumbers) ?? strictScaleError(patched, directive, patch.duplicateFields, patch.patchErrors);
      if (decodeError !== undefined) throw strictError(decodeError, patched);
      return patched;
    });
  await writeAnswer(scope, 200, scale, { source: scaleTable });
}
