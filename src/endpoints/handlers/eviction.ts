// POST of an Eviction to pods/eviction.
import { checkEviction, evictPod } from '../../registry/eviction.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { writeOptions } from '../query.ts';
import { decodeDeleteOptions, type DeleteOptionsBody } from './delete.ts';
import type { RequestScope } from './scope.ts';

/**
 * POST pods/{name}/eviction with a policy/v1 Eviction: 201 and a Success Status when the
 * pod is deleted; 404 for a missing pod, 429 when a disruption budget forbids it. The
 * Eviction goes through admission as a CREATE of pods/eviction, as upstream.
 */
export async function evictionHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, served } = scope;
  const eviction = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'Eviction', metadataOfVersion: 'v1' })).object;
  checkEviction(eviction, info.name, info.namespace);
  // Upstream decodes the deleteOptions with the Eviction: a value of the wrong type is a 400 before anything is done.
  let deleteOptions: DeleteOptionsBody | undefined;
  if (eviction.deleteOptions === undefined || eviction.deleteOptions === null) delete eviction.deleteOptions;
  else {
    const version = eviction.apiVersion?.split('/')[1] ?? 'v1';
    eviction.deleteOptions = deleteOptions = decodeDeleteOptions(eviction.deleteOptions, { kind: 'Eviction', version, field: 'deleteOptions' });
  }
  // The request's dryRun and the Eviction's deleteOptions.dryRun both make it a dry run
  // (upstream's propagateDryRun); a deleteOptions.dryRun of any value does, as
  // dryrun.IsDryRun reads it, since nothing on the eviction path validates it.
  const dryRun = writeOptions(scope.query, 'CreateOptions').dryRun || (deleteOptions?.dryRun ?? []).length > 0;
  eviction.apiVersion ??= 'policy/v1';
  eviction.kind ??= 'Eviction';

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
    dryRun,
    namespaced: true,
  };
  await served.store.admission.admit(attrs);
  await served.store.admission.validate(attrs);

  const status = await evictPod(registry, served.store, info.namespace, info.name, eviction, { dryRun });
  await writeAnswer(scope, 201, status);
}
