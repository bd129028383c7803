// Requests to types that store nothing: POST bindings (binds a pod, as pods/binding does),
// GET componentstatuses (synthesised health), POST access reviews (asks the authorizer) and
// the authentication reviews.
import { currentRequest } from '../../api/request-context.ts';
import { methodNotAllowed, notFound, type KubeObject } from '../../api/index.ts';
import { isReviewResource, review, type ReviewAuthorizer } from '../../registry/access-review.ts';
import { bindPod } from '../../registry/binding.ts';
import { componentStatuses } from '../../registry/builtin/componentstatuses.ts';
import { matchFields } from '../../api/fields.ts';
import { matchLabels } from '../../api/labels.ts';
import { filterFromQuery } from '../selectors.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { readBody, writeObject } from '../http.ts';
import { decodeObjectBody, ensureRequestNamespace } from '../object-body.ts';
import { writeOptions } from '../query.ts';
import { shapeList, writeAnswer } from '../answer.ts';
import type { RequestScope } from './scope.ts';
import { selfSubjectReviewHandler, tokenReviewHandler, type AuthenticationApi } from './authentication.ts';

/** What a Binding body decodes into (pods/binding's too). */
export const bindingType = { group: '', version: 'v1', kind: 'Binding' };

export async function virtualHandler(scope: RequestScope, registry: ResourceRegistry, authorizer: ReviewAuthorizer | undefined, authentication?: AuthenticationApi): Promise<void> {
  const { type } = scope.served;
  const verb = scope.info.verb;
  if (type.group === 'authorization.k8s.io' && isReviewResource(type.resource) && verb === 'create' && authorizer !== undefined) {
    const body = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), {
      cbor: scope.cbor, kind: type.kind, metadataOfVersion: type.version, schemeType: { group: type.group, version: type.version, kind: type.kind },
    })).object;
    const answer = await review(type.resource, body, { namespace: scope.info.namespace, requester: currentRequest()?.user, authorizer });
    return writeAnswer(scope, 201, answer);
  }
  if (type.group === '' && type.resource === 'bindings' && verb === 'create') {
    const binding = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'Binding', metadataOfVersion: 'v1', schemeType: bindingType })).object;
    return bindingHandler(scope, registry, binding, binding.metadata.name ?? '', 'bindings');
  }
  if (type.group === '' && type.resource === 'componentstatuses' && (verb === 'get' || verb === 'list')) {
    return componentStatusesHandler(scope);
  }
  if (type.group === 'authentication.k8s.io' && verb === 'create') {
    if (type.resource === 'tokenreviews' && authentication !== undefined) return tokenReviewHandler(scope, authentication);
    if (type.resource === 'selfsubjectreviews') return selfSubjectReviewHandler(scope);
  }
  throw methodNotAllowed();
}

/**
 * A Binding POSTed to bindings or pods/{name}/binding: admitted as a CREATE of that
 * resource with the Binding, then the pod is bound; 201 and a Success Status.
 */
export async function bindingHandler(scope: RequestScope, registry: ResourceRegistry, binding: KubeObject, name: string, resource: 'bindings' | 'pods'): Promise<void> {
  const { info } = scope;
  const pods = registry.lookup('', 'v1', 'pods')!.store;
  const dryRun = writeOptions(scope.query, 'CreateOptions').dryRun;
  binding.apiVersion ??= 'v1';
  binding.kind ??= 'Binding';
  ensureRequestNamespace(binding, info.namespace);
  const attrs = {
    operation: 'CREATE' as const,
    group: '', version: 'v1', resource,
    subresource: resource === 'pods' ? 'binding' : '',
    kind: 'Binding',
    namespace: info.namespace,
    name,
    object: binding,
    oldObject: undefined,
    dryRun,
    namespaced: true,
  };
  await pods.admission.admit(attrs);
  await pods.admission.validate(attrs);
  const status = await bindPod(pods, info.namespace, name, binding, { dryRun });
  await writeAnswer(scope, 201, status);
}

/** GET componentstatuses[/name]: etcd-0 healthy when storage answers a read. */
async function componentStatusesHandler(scope: RequestScope): Promise<void> {
  let storageError: string | undefined;
  try {
    await scope.served.store.list('', { limit: 1 });
  } catch (err) {
    storageError = err instanceof Error ? err.message : String(err);
  }
  const items = componentStatuses(storageError);
  if (scope.info.verb === 'get') {
    const item = items.find((c) => c.metadata.name === scope.info.name);
    // Upstream's REST names the resource in the singular here (kubernetes#129870).
    if (item === undefined) throw notFound({ group: '', resource: 'componentstatus' }, scope.info.name);
    await writeAnswer(scope, 200, item);
    return;
  }
  // Selectors filter as upstream's List: on labels (none) and the metadata fields, an empty namespace among them.
  const filter = filterFromQuery(scope.query, scope.served.type);
  const selected = filter === undefined ? items : items.filter((c) =>
    (filter.labels === undefined || matchLabels(filter.labels, c.metadata.labels))
    && (filter.fields === undefined || matchFields(filter.fields, { 'metadata.name': c.metadata.name ?? '', 'metadata.namespace': '' })));
  await writeObject(scope.res, 200, scope.negotiated, shapeList(scope, { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {} }, selected));
}
