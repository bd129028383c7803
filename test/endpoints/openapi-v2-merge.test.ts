// The aggregated OpenAPI v2 document's merge, after kube-openapi's aggregator package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateSwagger, filterByPathPrefixes, mergeSwagger, type SwaggerDocument } from '../../src/endpoints/openapi-v2-merge.ts';

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });
const op = (response: string, parameters: unknown[] = []) => ({ get: { parameters, responses: { 200: { description: 'OK', schema: ref(response) } } } });

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

test('a document cut to path prefixes keeps what its paths use, directly or not, and what no path used', () => {
  const doc: SwaggerDocument = deepFreeze({
    swagger: '2.0',
    paths: {
      '/apis/metrics.k8s.io/v1beta1/': op('APIResourceList'),
      '/apis/metrics.k8s.io/v1beta1/pods': op('PodMetricsList', [{ $ref: '#/parameters/labelSelector' }]),
      '/apis/other.example/v1/things': op('ThingList'),
      '/version/': op('Info'),
    },
    parameters: { labelSelector: { name: 'labelSelector', in: 'query', type: 'string' } },
    definitions: {
      APIResourceList: { type: 'object' },
      PodMetricsList: { properties: { items: { type: 'array', items: ref('PodMetrics') } } },
      PodMetrics: { properties: { metadata: ref('ObjectMeta') } },
      ObjectMeta: { type: 'object' },
      ThingList: { properties: { metadata: ref('ObjectMeta'), items: { items: ref('Thing') } } },
      Thing: { type: 'object' },
      Info: { type: 'object' },
      Orphan: { type: 'object' },
    },
  });
  const cut = filterByPathPrefixes(doc, ['/apis/metrics.k8s.io/v1beta1/']);
  assert.deepEqual(Object.keys(cut.paths!), ['/apis/metrics.k8s.io/v1beta1/', '/apis/metrics.k8s.io/v1beta1/pods']);
  assert.deepEqual(Object.keys(cut.definitions!).sort(), ['APIResourceList', 'ObjectMeta', 'Orphan', 'PodMetrics', 'PodMetricsList']);
  assert.deepEqual(cut.parameters, doc.parameters);
  assert.equal(cut.swagger, '2.0');
});

test('paths and definitions are added; a path already there stays as it was, with what only the other used', () => {
  const dest: SwaggerDocument = {
    swagger: '2.0', info: { title: 'Kubernetes' },
    paths: { '/api/v1/pods': op('PodList') },
    definitions: { PodList: { type: 'object' }, Shared: { type: 'string' } },
  };
  const source: SwaggerDocument = deepFreeze({
    swagger: '2.0', info: { title: 'metrics' },
    paths: { '/api/v1/pods': op('TheirPodList'), '/apis/metrics.k8s.io/v1beta1/pods': op('PodMetricsList') },
    definitions: { TheirPodList: { type: 'object' }, PodMetricsList: { properties: { s: ref('Shared') } }, Shared: { type: 'string' } },
  });
  mergeSwagger(dest, source);
  assert.deepEqual(dest.paths, { '/api/v1/pods': op('PodList'), '/apis/metrics.k8s.io/v1beta1/pods': op('PodMetricsList') });
  assert.deepEqual(Object.keys(dest.definitions!).sort(), ['PodList', 'PodMetricsList', 'Shared']);
  assert.deepEqual(dest.info, { title: 'Kubernetes' });
});

test('a definition of the same name and another content is renamed, and references follow it', () => {
  const dest: SwaggerDocument = { paths: { '/a': op('Status') }, definitions: { Status: { type: 'object', properties: { code: { type: 'integer' } } } } };
  const mine = { type: 'object', properties: { reason: { type: 'string' } } };
  const first: SwaggerDocument = deepFreeze({ paths: { '/b': op('Status'), '/b2': op('Wrapper') }, definitions: { Status: mine, Wrapper: { properties: { status: ref('Status') } } } });
  mergeSwagger(dest, first);
  assert.deepEqual(dest.definitions!.Status_v2, mine);
  assert.deepEqual(dest.paths!['/b'], op('Status_v2'));
  assert.deepEqual(dest.definitions!.Wrapper, { properties: { status: ref('Status_v2') } });
  // A later source with that same content reuses the renamed copy; another content takes the next name.
  mergeSwagger(dest, deepFreeze({ paths: { '/c': op('Status') }, definitions: { Status: mine } }));
  assert.deepEqual(dest.paths!['/c'], op('Status_v2'));
  const third = { type: 'string' };
  mergeSwagger(dest, deepFreeze({ paths: { '/d': op('Status') }, definitions: { Status: third } }));
  assert.deepEqual(dest.paths!['/d'], op('Status_v3'));
  assert.deepEqual(dest.definitions!.Status_v3, third);
  assert.deepEqual(Object.keys(dest.definitions!).sort(), ['Status', 'Status_v2', 'Status_v3', 'Wrapper']);
});

test('the same definition is merged once, its group-version-kinds joined', () => {
  const dest: SwaggerDocument = {
    paths: { '/a': op('DeleteOptions') },
    definitions: { DeleteOptions: { type: 'object', 'x-kubernetes-group-version-kind': [gvk('', 'v1', 'DeleteOptions'), gvk('apps', 'v1', 'DeleteOptions')] } },
  };
  mergeSwagger(dest, deepFreeze({
    paths: { '/apis/metrics.k8s.io/v1beta1/x': op('DeleteOptions') },
    definitions: { DeleteOptions: { type: 'object', 'x-kubernetes-group-version-kind': [gvk('', 'v1', 'DeleteOptions'), gvk('metrics.k8s.io', 'v1beta1', 'DeleteOptions')] } },
  }));
  assert.deepEqual(dest.definitions!.DeleteOptions, {
    type: 'object',
    'x-kubernetes-group-version-kind': [gvk('', 'v1', 'DeleteOptions'), gvk('apps', 'v1', 'DeleteOptions'), gvk('metrics.k8s.io', 'v1beta1', 'DeleteOptions')],
  });
  assert.equal(dest.paths!['/apis/metrics.k8s.io/v1beta1/x'] !== undefined, true);
});

test('global parameters are added, and one of the same name and another content is renamed with its references', () => {
  const dest: SwaggerDocument = { paths: { '/a': op('X', [{ $ref: '#/parameters/body-abc' }]) }, parameters: { 'body-abc': { name: 'body', in: 'body' } }, definitions: { X: {} } };
  mergeSwagger(dest, deepFreeze({
    paths: { '/b': op('X', [{ $ref: '#/parameters/body-abc' }, { $ref: '#/parameters/pretty' }]) },
    parameters: { 'body-abc': { name: 'body', in: 'body', required: true }, pretty: { name: 'pretty', in: 'query', type: 'string' } },
    definitions: { X: {} },
  }));
  assert.deepEqual(dest.paths!['/b'], op('X', [{ $ref: '#/parameters/body-abc_v2' }, { $ref: '#/parameters/pretty' }]));
  assert.deepEqual(dest.parameters, {
    'body-abc': { name: 'body', in: 'body' },
    'body-abc_v2': { name: 'body', in: 'body', required: true },
    pretty: { name: 'pretty', in: 'query', type: 'string' },
  });
});

test('a source without paths, or whose paths are all there already, adds nothing', () => {
  const dest: SwaggerDocument = { paths: { '/a': op('A') }, definitions: { A: {} } };
  mergeSwagger(dest, deepFreeze({ definitions: { B: {} } }));
  mergeSwagger(dest, deepFreeze({ paths: { '/a': op('C') }, definitions: { C: {} } }));
  assert.deepEqual(dest, { paths: { '/a': op('A') }, definitions: { A: {} } });
});

test('an extension server\'s document nested past what can be walked is left out; the others are merged', () => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 200_000; i++) deep = { properties: { x: deep } };
  const served: SwaggerDocument = { swagger: '2.0', paths: { '/api/v1/pods': op('Pod') }, definitions: { Pod: {} } };
  const merged = aggregateSwagger(served, [
    { name: 'v1.deep.example', group: 'deep.example', version: 'v1', groupPriorityMinimum: 2000, versionPriority: 1, document: { paths: { '/apis/deep.example/v1/x': op('Deep') }, definitions: { Deep: deep } } },
    { name: 'v1.fine.example', group: 'fine.example', version: 'v1', groupPriorityMinimum: 100, versionPriority: 1, document: { paths: { '/apis/fine.example/v1/y': op('Fine') }, definitions: { Fine: {} } } },
  ]);
  assert.deepEqual(Object.keys(merged.paths!), ['/api/v1/pods', '/apis/fine.example/v1/y']);
  assert.deepEqual(Object.keys(merged.definitions!), ['Fine', 'Pod']);
  assert.deepEqual(Object.keys(served.paths!), ['/api/v1/pods'], 'the served document is not changed');
});
