// Custom resources at the Store level: the ResourceTypes a CRD becomes and the generic
// Store driving them (apiextensions-apiserver pkg/registry/customresource semantics).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain } from '../../../src/admission/chain.ts';
import { isStatusError, type KubeObject } from '../../../src/api/index.ts';
import { compareVersionPriority, customResourceSchemaName, customResourceVersions } from '../../../src/registry/crd/custom-resource.ts';
import { CustomResourceStore } from '../../../src/registry/crd/custom-resource-store.ts';
import type { CustomResourceDefinition } from '../../../src/registry/crd/types.ts';
import { getScale, updateScale } from '../../../src/registry/scale.ts';
import { builtinDefinitions } from '../../../src/schema/builtin/index.ts';
import type { Definitions } from '../../../src/schema/types.ts';
import { MemoryBackend } from '../../../src/storage/memory.ts';

type Json = Record<string, any>;

function widgetsCrd(edit: (c: Json) => void = () => {}): CustomResourceDefinition {
  const c: Json = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        selectableFields: [{ jsonPath: '.spec.color' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                  replicas: { type: 'integer', minimum: 0 },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
      }],
    },
    status: { acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] } },
  };
  edit(c);
  return c as CustomResourceDefinition;
}

function storeFor(crd: CustomResourceDefinition, state = { terminating: false }, version = 'v1') {
  const definitions: Definitions = { ...builtinDefinitions };
  const served = customResourceVersions(crd, { definitions, terminating: () => state.terminating });
  const v = served.find((s) => s.type.version === version)!;
  definitions[v.type.schemaName] = v.definition;
  return new CustomResourceStore(v.type, new MemoryBackend(), new AdmissionChain([]), undefined, { definitions });
}

function widget(spec: Json, extra: Json = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec, ...extra };
}

async function rejects(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string; causes: string[] }> {
  try {
    await p;
  } catch (err) {
    if (!isStatusError(err)) throw err;
    const status = err.toStatus();
    return { code: status.code, reason: status.reason ?? '', message: status.message ?? '', causes: (status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`) };
  }
  throw new Error('expected a rejection');
}

test('a served version becomes a ResourceType with the accepted names, subresources and printer columns', () => {
  const [v] = customResourceVersions(widgetsCrd(), { definitions: {}, terminating: () => false });
  const t = v!.type;
  assert.deepEqual(
    { group: t.group, version: t.version, resource: t.resource, singular: t.singular, kind: t.kind, listKind: t.listKind, namespaced: t.namespaced, shortNames: t.shortNames, categories: t.categories, subresources: t.subresources, schemaName: t.schemaName, allowCreateOnUpdate: t.allowCreateOnUpdate, allowUnconditionalUpdate: t.allowUnconditionalUpdate, customResource: t.customResource },
    { group: 'example.com', version: 'v1', resource: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', namespaced: true, shortNames: ['wd'], categories: ['all'], subresources: ['status', 'scale'], schemaName: 'com.example.v1.Widget', allowCreateOnUpdate: false, allowUnconditionalUpdate: false, customResource: true },
  );
  assert.deepEqual(t.tableColumns!.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
  assert.deepEqual(t.strategy.fieldLabels, ['metadata.name', 'metadata.namespace', 'spec.color']);
  assert.deepEqual(v!.definition['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
  assert.deepEqual(v!.definition.properties!.metadata, {
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    description: 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  });
});

test('unserved versions are left out and the others come in upstream priority order', () => {
  const crd = widgetsCrd((c) => {
    const v1 = c.spec.versions[0];
    c.spec.versions = [
      { ...structuredClone(v1), name: 'v1alpha1', storage: false },
      { ...structuredClone(v1), name: 'v2beta1', storage: false },
      { ...structuredClone(v1), name: 'v1' },
      { ...structuredClone(v1), name: 'v3', served: false, storage: false },
    ];
  });
  assert.deepEqual(customResourceVersions(crd, { definitions: {}, terminating: () => false }).map((v) => v.type.version), ['v1', 'v2beta1', 'v1alpha1']);
  assert.deepEqual(['foo', 'v1beta1', 'v10', 'v2', 'v1alpha1', 'v11alpha2', 'v1'].sort(compareVersionPriority), ['v10', 'v2', 'v1', 'v1beta1', 'v11alpha2', 'v1alpha1', 'foo']);
  assert.equal(customResourceSchemaName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
});

test('create prunes unknown fields, applies defaults, drops status and sets generation 1', async () => {
  const store = storeFor(widgetsCrd());
  const created = await store.create('default', widget({ replicas: 2, bogus: true, extra: { kept: 1 } }, { status: { replicas: 5 }, other: 1 }));
  assert.deepEqual(created.spec, { replicas: 2, extra: { kept: 1 }, color: 'red' });
  assert.equal(created.status, undefined);
  assert.equal(created.other, undefined);
  assert.equal(created.metadata.generation, 1);
});

test('the schema is enforced with upstream messages', async () => {
  const store = storeFor(widgetsCrd());
  const err = await rejects(store.create('default', widget({ color: 'green', replicas: -1 })));
  assert.equal(err.code, 422);
  // The schema's causes before the scale path's, as upstream's customResourceValidator.Validate appends them.
  assert.deepEqual(err.causes, [
    'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    '.spec.replicas: Invalid value: -1: should be a non-negative integer',
  ]);
});

test('the main resource ignores status; generation moves with everything but metadata', async () => {
  const store = storeFor(widgetsCrd());
  const created = await store.create('default', widget({ replicas: 1 }));
  const labelled = structuredClone(created);
  labelled.metadata.labels = { a: 'b' };
  labelled.status = { replicas: 9 };
  const afterLabel = (await store.update('default', 'w', labelled)).object;
  assert.equal(afterLabel.metadata.generation, 1);
  assert.equal(afterLabel.status, undefined);
  const respec = structuredClone(afterLabel);
  (respec.spec as Json).replicas = 3;
  const afterSpec = (await store.update('default', 'w', respec)).object;
  assert.equal(afterSpec.metadata.generation, 2);
});

test('without a status subresource status is written through the main resource and bumps generation', async () => {
  const store = storeFor(widgetsCrd((c) => { delete c.spec.versions[0].subresources; }));
  const created = await store.create('default', widget({}, { status: { replicas: 1 } }));
  assert.deepEqual(created.status, { replicas: 1 });
  const next = structuredClone(created);
  next.status = { replicas: 2 };
  const updated = (await store.update('default', 'w', next)).object;
  assert.deepEqual(updated.status, { replicas: 2 });
  assert.equal(updated.metadata.generation, 2);
});

test('the status subresource changes status only', async () => {
  const store = storeFor(widgetsCrd());
  const created = await store.create('default', widget({ replicas: 1 }));
  const { object } = await store.guaranteedUpdate('default', 'w', created.metadata.resourceVersion, {}, (current) => {
    const next = structuredClone(current!);
    next.spec = { replicas: 7 };
    next.metadata.labels = { x: 'y' };
    next.status = { replicas: 4 };
    return next;
  }, { subresource: 'status' });
  assert.deepEqual(object.spec, { replicas: 1, color: 'red' });
  assert.equal(object.metadata.labels, undefined);
  assert.deepEqual(object.status, { replicas: 4 });
  assert.equal(object.metadata.generation, 1);
  const err = await rejects(store.guaranteedUpdate('default', 'w', undefined, {}, (current) => ({ ...current!, status: { replicas: 'many' } }), { subresource: 'status' }));
  assert.equal(err.code, 422);
  assert.deepEqual(err.causes, [
    'status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string"',
    '.status.replicas: Invalid value: 0: .status.replicas accessor error: many is of the type string, expected int64',
  ]);
});

test('scale reads and writes the CRD\'s replica paths', async () => {
  const store = storeFor(widgetsCrd());
  await store.create('default', widget({ replicas: 2 }));
  await store.guaranteedUpdate('default', 'w', undefined, {}, (current) => ({ ...current!, status: { replicas: 1, selector: 'app=w' } }), { subresource: 'status' });
  const scale = await getScale(store, 'default', 'w');
  assert.deepEqual({ spec: scale.spec, status: scale.status }, { spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=w' } });
  const scaled = await updateScale(store, 'default', 'w', undefined, {}, (current) => ({ ...current, spec: { replicas: 5 } }));
  assert.deepEqual(scaled.spec, { replicas: 5 });
  const obj = await store.find('default', 'w');
  assert.equal((obj!.spec as Json).replicas, 5);
  assert.equal(obj!.metadata.generation, 2);
});

test('an update needs a resourceVersion and a missing object is not created', async () => {
  const store = storeFor(widgetsCrd());
  const notFound = await rejects(store.update('default', 'w', widget({})));
  assert.equal(notFound.code, 404);
  await store.create('default', widget({}));
  const unconditional = await rejects(store.update('default', 'w', widget({ replicas: 1 })));
  assert.equal(unconditional.code, 422);
  assert.deepEqual(unconditional.causes, ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
});

test('creates are refused while the CRD is terminating', async () => {
  const state = { terminating: true };
  const err = await storeFor(widgetsCrd(), state).create('default', widget({})).then(() => undefined, (e: unknown) => e);
  assert.ok(isStatusError(err));
  // Upstream's NewMethodNotSupported with its message replaced: the details name the resource.
  const { code, reason, message, details } = err.toStatus();
  assert.deepEqual([code, reason, message, details], [405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: 'example.com', kind: 'widgets' }]);
});

test('reads show the version asked for and defaults the schema gained since the write', async () => {
  const crd = widgetsCrd((c) => {
    c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), name: 'v1beta1', storage: false });
  });
  const v1 = storeFor(crd);
  const created = await v1.create('default', widget({ replicas: 1 }));
  const backendValue = await (v1 as unknown as { backend: MemoryBackend }).backend.get('/registry/example.com/widgets/default/w');
  const withDefault = widgetsCrd((c) => {
    c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), name: 'v1beta1', storage: false });
    c.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.size = { type: 'string', default: 'M' };
  });
  const beta = storeFor(withDefault, { terminating: false }, 'v1beta1');
  const read = beta.decode(backendValue!);
  assert.equal(read.apiVersion, 'example.com/v1beta1');
  assert.deepEqual(read.spec, { replicas: 1, color: 'red', size: 'M' });
  assert.equal(read.metadata.uid, created.metadata.uid);
});

test('selectable fields take part in field selectors', () => {
  const [v] = customResourceVersions(widgetsCrd(), { definitions: {}, terminating: () => false });
  assert.deepEqual(v!.type.strategy.selectableFields!(widget({ color: 'blue' })), { 'spec.color': 'blue' });
});
