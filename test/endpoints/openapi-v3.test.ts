import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { buildOpenApiV3 } from '../../src/endpoints/openapi.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import type { Definitions } from '../../src/schema/types.ts';
import { builtinTypes, widgetType } from './openapi-fixtures.ts';

type Json = Record<string, any>;

const built = buildOpenApiV3(builtinTypes, builtinDefinitions);

function doc(key: string): Json {
  const d = built.documents.get(key);
  assert.ok(d, `document ${key}`);
  return JSON.parse(d.json);
}

const coreV1 = doc('api/v1');
const appsV1 = doc('apis/apps/v1');

function operation(d: Json, path: string, method: string): Json {
  const op = d.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path}`);
  return op;
}

function paramNames(op: Json): string[] {
  return (op.parameters ?? []).map((p: Json) => p.name);
}

function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.add(v);
      else refsIn(v, found);
    }
  }
  return found;
}

describe('OpenAPI v3 index', () => {
  test('lists the group-versions and discovery roots served', () => {
    assert.deepEqual(Object.keys(built.index.paths), [
      'api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/coordination.k8s.io', 'apis/coordination.k8s.io/v1',
    ]);
  });

  test('each serverRelativeURL carries the upper-case SHA-512 of its document', () => {
    for (const [key, entry] of Object.entries(built.index.paths)) {
      const d = built.documents.get(key)!;
      const sha = createHash('sha512').update(d.json).digest('hex').toUpperCase();
      assert.equal(d.hash, sha);
      assert.equal(entry.serverRelativeURL, `/openapi/v3/${key}?hash=${sha}`);
    }
  });

  test('building twice, with the types in another order, gives identical documents', () => {
    const again = buildOpenApiV3([...builtinTypes].reverse(), builtinDefinitions);
    assert.deepEqual(again.index, built.index);
    for (const [key, d] of built.documents) assert.equal(again.documents.get(key)!.json, d.json);
  });

  test('a change of types changes only the affected documents\' hashes', () => {
    const fewer = buildOpenApiV3(builtinTypes.filter((t) => t.resource !== 'leases'), builtinDefinitions);
    assert.equal(fewer.documents.get('api/v1')!.hash, built.documents.get('api/v1')!.hash);
    assert.equal(fewer.documents.get('apis/coordination.k8s.io/v1'), undefined);
    assert.equal(fewer.index.paths['apis/coordination.k8s.io'], undefined);
  });
});

describe('OpenAPI v3 group-version document', () => {
  test('is OpenAPI 3.0.0 titled Kubernetes', () => {
    assert.equal(coreV1.openapi, '3.0.0');
    assert.equal(coreV1.info.title, 'Kubernetes');
    assert.equal(typeof coreV1.info.version, 'string');
  });

  test('every $ref resolves within components.schemas, and every schema there is referenced', () => {
    for (const key of built.documents.keys()) {
      const d = doc(key);
      const schemas = d.components.schemas as Json;
      const refs = refsIn(d);
      for (const ref of refs) {
        assert.match(ref, /^#\/components\/schemas\//);
        assert.ok(ref.slice('#/components/schemas/'.length) in schemas, `${key}: ${ref}`);
      }
      const referenced = new Set([...refs].map((r) => r.slice('#/components/schemas/'.length)));
      for (const name of Object.keys(schemas)) assert.ok(referenced.has(name), `${key}: ${name} is not referenced`);
    }
  });

  test('holds only what its paths reach', () => {
    const schemas = Object.keys(appsV1.components.schemas);
    assert.ok(schemas.includes('io.k8s.api.apps.v1.Deployment'));
    assert.ok(schemas.includes('io.k8s.api.core.v1.PodSpec'));
    assert.ok(schemas.includes('io.k8s.api.autoscaling.v1.Scale'));
    assert.ok(!schemas.includes('io.k8s.api.core.v1.Node'));
    assert.ok(!schemas.includes('io.k8s.api.coordination.v1.Lease'));
  });

  test('a $ref with siblings becomes allOf so that the field keeps its own description', () => {
    const spec = coreV1.components.schemas['io.k8s.api.core.v1.Pod'].properties.spec;
    assert.deepEqual(spec.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }]);
    assert.equal(spec.$ref, undefined);
    assert.equal(typeof spec.description, 'string');
    const strategy = appsV1.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.equal(strategy['x-kubernetes-patch-strategy'], 'retainKeys');
    assert.deepEqual(strategy.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }]);
    const items = coreV1.components.schemas['io.k8s.api.core.v1.PodList'].properties.items.items;
    assert.deepEqual(items, { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' });
  });

  test('patch metadata is published on list fields', () => {
    const containers = coreV1.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers;
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    const ports = coreV1.components.schemas['io.k8s.api.core.v1.ServiceSpec'].properties.ports;
    assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['port', 'protocol']);
    assert.equal(ports['x-kubernetes-patch-merge-key'], 'port');
  });

  test('top-level kinds carry x-kubernetes-group-version-kind in components', () => {
    assert.deepEqual(coreV1.components.schemas['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    assert.deepEqual(appsV1.components.schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  });
});

describe('OpenAPI v3 operations', () => {
  const podItem = '/api/v1/namespaces/{namespace}/pods/{name}';

  test('PATCH carries fieldValidation and the GVK, which is how kubectl detects server-side field validation', () => {
    const patch = operation(coreV1, podItem, 'patch');
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.equal(patch.operationId, 'patchCoreV1NamespacedPod');
    assert.deepEqual(paramNames(patch), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    const fieldValidation = patch.parameters.find((p: Json) => p.name === 'fieldValidation');
    assert.equal(fieldValidation.in, 'query');
    assert.equal(fieldValidation.schema.type, 'string');
  });

  test('every PATCH with a GVK has fieldValidation (kubectl stops at the first one it meets)', () => {
    for (const key of built.documents.keys()) {
      for (const [path, item] of Object.entries(doc(key).paths as Json)) {
        const patch = (item as Json).patch;
        if (patch?.['x-kubernetes-group-version-kind'] === undefined) continue;
        assert.ok(paramNames(patch).includes('fieldValidation'), `${key} ${path}`);
      }
    }
  });

  test('PATCH accepts the four patch media types for built-in kinds', () => {
    const patch = operation(coreV1, podItem, 'patch');
    assert.deepEqual(Object.keys(patch.requestBody.content), [
      'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
    ]);
    assert.deepEqual(patch.requestBody.content['application/apply-patch+yaml'].schema, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' });
    assert.equal(patch.requestBody.required, true);
  });

  test('POST and PUT take the object and the write parameters', () => {
    const post = operation(coreV1, '/api/v1/namespaces/{namespace}/configmaps', 'post');
    assert.equal(post.operationId, 'createCoreV1NamespacedConfigMap');
    assert.equal(post['x-kubernetes-action'], 'post');
    assert.deepEqual(paramNames(post), ['dryRun', 'fieldManager', 'fieldValidation']);
    assert.deepEqual(post.requestBody.content['*/*'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' });
    assert.deepEqual(Object.keys(post.responses), ['200', '201', '202', '401']);
    const put = operation(coreV1, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'put');
    assert.equal(put.operationId, 'replaceCoreV1NamespacedConfigMap');
    assert.deepEqual(paramNames(put), ['dryRun', 'fieldManager', 'fieldValidation']);
  });

  test('list takes the list parameters and answers the list kind, also as a watch stream', () => {
    const list = operation(coreV1, '/api/v1/namespaces/{namespace}/configmaps', 'get');
    assert.equal(list.operationId, 'listCoreV1NamespacedConfigMap');
    assert.equal(list['x-kubernetes-action'], 'list');
    assert.deepEqual(list['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
    for (const name of ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'allowWatchBookmarks', 'sendInitialEvents', 'timeoutSeconds']) {
      assert.ok(paramNames(list).includes(name), name);
    }
    const content = list.responses['200'].content;
    assert.deepEqual(content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMapList' });
    assert.ok('application/json;stream=watch' in content);
    const all = operation(coreV1, '/api/v1/configmaps', 'get');
    assert.equal(all.operationId, 'listCoreV1ConfigMapForAllNamespaces');
  });

  test('delete and deletecollection take DeleteOptions; pods answer the pod, others a Status', () => {
    const del = operation(coreV1, podItem, 'delete');
    assert.equal(del['x-kubernetes-action'], 'delete');
    assert.deepEqual(paramNames(del), ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy']);
    assert.deepEqual(del.requestBody.content['*/*'].schema, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' });
    assert.equal(del.requestBody.required, false);
    assert.deepEqual(del.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' });
    const delCm = operation(coreV1, '/api/v1/namespaces/{namespace}/configmaps/{name}', 'delete');
    assert.deepEqual(delCm.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status' });
    const collection = operation(coreV1, '/api/v1/namespaces/{namespace}/configmaps', 'delete');
    assert.equal(collection.operationId, 'deleteCoreV1CollectionNamespacedConfigMap');
    assert.equal(collection['x-kubernetes-action'], 'deletecollection');
  });

  test('path parameters sit on the path item', () => {
    assert.deepEqual(coreV1.paths[podItem].parameters.map((p: Json) => [p.name, p.in, p.required ?? false]), [
      ['name', 'path', true], ['namespace', 'path', true], ['pretty', 'query', false],
    ]);
  });

  test('cluster-scoped kinds have no namespace in their paths', () => {
    assert.equal(operation(coreV1, '/api/v1/nodes', 'get').operationId, 'listCoreV1Node');
    assert.equal(operation(coreV1, '/api/v1/nodes/{name}', 'patch').operationId, 'patchCoreV1Node');
    assert.equal(operation(coreV1, '/api/v1/nodes/{name}/status', 'put').operationId, 'replaceCoreV1NodeStatus');
    assert.deepEqual(coreV1.paths['/api/v1/nodes/{name}'].parameters.map((p: Json) => p.name), ['name', 'pretty']);
  });

  test('watch paths are described', () => {
    assert.equal(operation(coreV1, '/api/v1/watch/namespaces/{namespace}/pods', 'get')['x-kubernetes-action'], 'watchlist');
    assert.equal(operation(coreV1, '/api/v1/watch/namespaces/{namespace}/pods/{name}', 'get')['x-kubernetes-action'], 'watch');
    assert.equal(operation(coreV1, '/api/v1/watch/pods', 'get').operationId, 'watchCoreV1PodListForAllNamespaces');
    assert.deepEqual(
      operation(coreV1, '/api/v1/watch/pods', 'get').responses['200'].content['application/json'].schema,
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent' },
    );
  });

  test('status keeps the kind\'s GVK; scale and eviction have their own', () => {
    const status = operation(appsV1, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status', 'patch');
    assert.equal(status.operationId, 'patchAppsV1NamespacedDeploymentStatus');
    assert.deepEqual(status['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
    const scale = operation(appsV1, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'put');
    assert.equal(scale.operationId, 'replaceAppsV1NamespacedDeploymentScale');
    assert.deepEqual(scale['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    assert.deepEqual(scale.requestBody.content['*/*'].schema, { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' });
    const eviction = operation(coreV1, '/api/v1/namespaces/{namespace}/pods/{name}/eviction', 'post');
    assert.equal(eviction.operationId, 'createCoreV1NamespacedPodEviction');
    assert.deepEqual(eviction['x-kubernetes-group-version-kind'], { group: 'policy', kind: 'Eviction', version: 'v1' });
    assert.deepEqual(Object.keys(coreV1.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction']).sort(), ['parameters', 'post']);
  });

  test('subresources are described with their own verbs; those without a known body are left out', () => {
    assert.equal(coreV1.paths['/api/v1/namespaces/{namespace}/pods/{name}/log'], undefined);
    assert.deepEqual(Object.keys(coreV1.paths['/api/v1/namespaces/{name}/finalize']).sort(), ['parameters', 'put']);
    assert.equal(operation(coreV1, '/api/v1/namespaces/{name}/finalize', 'put').operationId, 'replaceCoreV1NamespaceFinalize');
    assert.deepEqual(Object.keys(coreV1.paths['/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers']).sort(), ['get', 'parameters', 'patch', 'put']);
    assert.equal(operation(coreV1, '/api/v1/namespaces/{namespace}/pods/{name}/binding', 'post').operationId, 'createCoreV1NamespacedPodBinding');
  });

  test('verbs a type does not serve have no operation', () => {
    const readOnly: ResourceType = { ...builtinTypes.find((t) => t.resource === 'configmaps')!, verbs: ['get', 'list'] };
    const d = JSON.parse(buildOpenApiV3([readOnly], builtinDefinitions).documents.get('api/v1')!.json);
    assert.deepEqual(Object.keys(d.paths['/api/v1/namespaces/{namespace}/configmaps']).sort(), ['get', 'parameters']);
    assert.deepEqual(Object.keys(d.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']).sort(), ['get', 'parameters']);
    assert.equal(d.paths['/api/v1/watch/configmaps'], undefined);
  });

  test('operation IDs are unique within each document', () => {
    for (const key of built.documents.keys()) {
      const ids = Object.values(doc(key).paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId)).filter(Boolean);
      assert.equal(new Set(ids).size, ids.length, key);
    }
  });

  test('discovery roots describe GET /api/, /apis/ and /apis/{group}/', () => {
    assert.equal(operation(doc('api'), '/api/', 'get').operationId, 'getCoreAPIVersions');
    assert.equal(operation(doc('apis'), '/apis/', 'get').operationId, 'getAPIVersions');
    assert.equal(operation(doc('apis/apps'), '/apis/apps/', 'get').operationId, 'getAppsAPIGroup');
    assert.equal(operation(doc('apis/coordination.k8s.io'), '/apis/coordination.k8s.io/', 'get').operationId, 'getCoordinationAPIGroup');
    assert.equal(operation(coreV1, '/api/v1/', 'get').operationId, 'getCoreV1APIResources');
  });
});

describe('OpenAPI v3 for a custom resource', () => {
  const widgetSchema = {
    type: 'object' as const,
    properties: {
      apiVersion: { type: 'string' as const },
      kind: { type: 'string' as const },
      metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      spec: { type: 'object' as const, properties: { size: { type: 'integer' as const } } },
    },
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'Widget', version: 'v1' }],
  };
  const defs: Definitions = { ...builtinDefinitions, 'com.example.stable.v1.Widget': widgetSchema };
  const v3 = buildOpenApiV3([widgetType()], defs);
  const d = JSON.parse(v3.documents.get('apis/stable.example.com/v1')!.json);
  const base = '/apis/stable.example.com/v1/namespaces/{namespace}/widgets';

  test('gets a synthesized list kind', () => {
    const list = d.components.schemas['com.example.stable.v1.WidgetList'];
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'WidgetList', version: 'v1' }]);
    assert.deepEqual(list.properties.items.items, { $ref: '#/components/schemas/com.example.stable.v1.Widget' });
  });

  test('is named after its group and accepts no strategic merge patch', () => {
    const patch = operation(d, `${base}/{name}`, 'patch');
    assert.equal(patch.operationId, 'patchStableExampleComV1NamespacedWidget');
    assert.deepEqual(patch.tags, ['stableExampleCom_v1']);
    assert.deepEqual(Object.keys(patch.requestBody.content), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
    assert.ok(paramNames(patch).includes('fieldValidation'));
  });

  test('a missing schema is an error, not a silent omission', () => {
    assert.throws(() => buildOpenApiV3([widgetType()], builtinDefinitions), /no schema com\.example\.stable\.v1\.Widget/);
  });
});
