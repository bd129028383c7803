import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { builtinDefinitions, builtinDefinitionsCopy, goEncodingOf } from '../../src/schema/builtin/index.ts';
import { reachableDefinitions, refName, resolve, walkSchema } from '../../src/schema/resolve.ts';
import type { Schema } from '../../src/schema/types.ts';

const defs = builtinDefinitions;
const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const APPS = 'io.k8s.api.apps.v1.';

function property(definition: string, path: string): Schema {
  let schema = defs[definition];
  assert.ok(schema, `definition ${definition}`);
  for (const name of path.split('.')) {
    const resolved: Schema = resolve(defs, schema!);
    const next = resolved.properties?.[name];
    assert.ok(next, `${definition} has no property ${path}`);
    schema = next;
  }
  return schema!;
}

describe('built-in definitions', () => {
  const generated = new URL('../../src/schema/builtin/generated/', import.meta.url);

  test('each is parsed on first read, as parsing the whole file gives it, with what Go\'s encoding says of it', async () => {
    // A module instance of its own, whose definitions nothing has read yet.
    const fresh = (await import(`../../src/schema/builtin/index.ts?fresh=${Date.now()}`)) as typeof import('../../src/schema/builtin/index.ts');
    const lazy = fresh.builtinDefinitions;
    const whole = JSON.parse(readFileSync(new URL('definitions.json', generated), 'utf8')) as Record<string, Schema>;
    assert.deepEqual(Object.keys(lazy), Object.keys(whole));
    const parsed = (name: string) => 'value' in Object.getOwnPropertyDescriptor(lazy, name)!;
    assert.equal(Object.keys(lazy).filter(parsed).length, 0);
    assert.deepEqual(lazy[`${CORE}Pod`], whole[`${CORE}Pod`]);
    assert.equal(lazy[`${CORE}Pod`], lazy[`${CORE}Pod`], 'parsed once');
    assert.deepEqual(Object.keys(lazy).filter(parsed), [`${CORE}Pod`]);
    for (const name of Object.keys(whole)) assert.deepEqual(lazy[name], whole[name], name);

    const encodings = JSON.parse(readFileSync(new URL('go-encoding.json', generated), 'utf8')) as Record<string, { zero?: string[]; written?: Record<string, unknown> }>;
    for (const [name, entry] of Object.entries(encodings)) {
      if (!(name in whole)) continue;
      const encoding = fresh.goEncodingOf(lazy[name]!);
      assert.ok(encoding, name);
      assert.deepEqual([...encoding.zero], entry.zero ?? [], name);
      assert.deepEqual(encoding.written, Object.entries(entry.written ?? {}), name);
    }
    assert.equal(goEncodingOf(defs[`${CORE}PodSpec`]!)?.zero.has('hostNetwork'), true);
  });

  test('a copy reads the built-ins when first read, and takes definitions of its own', () => {
    const copy = builtinDefinitionsCopy();
    assert.deepEqual(Object.keys(copy), Object.keys(defs));
    assert.equal(copy[`${CORE}ConfigMap`], defs[`${CORE}ConfigMap`]);
    const own: Schema = { type: 'object', properties: { spec: { type: 'string' } } };
    copy['com.example.v1.Widget'] = own;
    copy[`${CORE}Secret`] = own;
    assert.equal(copy['com.example.v1.Widget'], own);
    assert.equal(copy[`${CORE}Secret`], own);
    assert.notEqual(defs[`${CORE}Secret`], own, 'the built-ins stay as they are');
    assert.equal(defs['com.example.v1.Widget'], undefined);
    assert.deepEqual({ ...copy }[`${CORE}Pod`], defs[`${CORE}Pod`]);
  });

  test('every $ref names a definition', () => {
    for (const [name, schema] of Object.entries(defs)) {
      walkSchema(schema, (s) => {
        if (s.$ref !== undefined) assert.ok(refName(s.$ref) in defs, `${name} refers to missing ${s.$ref}`);
      });
    }
  });

  test('refs use the OpenAPI v3 components form and carry no type or properties beside them', () => {
    for (const [name, schema] of Object.entries(defs)) {
      walkSchema(schema, (s) => {
        if (s.$ref === undefined) return;
        assert.match(s.$ref, /^#\/components\/schemas\//, name);
        assert.equal(s.type, undefined, `${name}: $ref with type`);
        assert.equal(s.properties, undefined, `${name}: $ref with properties`);
      });
    }
  });

  test('arrays have items, objects with properties say so, required fields exist', () => {
    for (const [name, schema] of Object.entries(defs)) {
      walkSchema(schema, (s) => {
        if (s.type === 'array') assert.ok(s.items, `${name}: array without items`);
        if (s.properties !== undefined) assert.equal(s.type, 'object', `${name}: properties without type object`);
        for (const field of s.required ?? []) assert.ok(s.properties?.[field], `${name}: required ${field} is not a property`);
        if (s['x-kubernetes-list-type'] === 'map') {
          const item = resolve(defs, s.items!);
          for (const key of s['x-kubernetes-list-map-keys'] ?? []) assert.ok(item.properties?.[key], `${name}: map key ${key} is not an item field`);
        }
      });
    }
  });

  const kinds: [string, string, string, string][] = [
    [CORE + 'Namespace', '', 'v1', 'Namespace'],
    [CORE + 'NamespaceList', '', 'v1', 'NamespaceList'],
    [CORE + 'ConfigMap', '', 'v1', 'ConfigMap'],
    [CORE + 'ConfigMapList', '', 'v1', 'ConfigMapList'],
    [CORE + 'Secret', '', 'v1', 'Secret'],
    [CORE + 'SecretList', '', 'v1', 'SecretList'],
    [CORE + 'ServiceAccount', '', 'v1', 'ServiceAccount'],
    [CORE + 'ServiceAccountList', '', 'v1', 'ServiceAccountList'],
    [CORE + 'Event', '', 'v1', 'Event'],
    [CORE + 'EventList', '', 'v1', 'EventList'],
    [CORE + 'Service', '', 'v1', 'Service'],
    [CORE + 'ServiceList', '', 'v1', 'ServiceList'],
    [CORE + 'Pod', '', 'v1', 'Pod'],
    [CORE + 'PodList', '', 'v1', 'PodList'],
    [CORE + 'Node', '', 'v1', 'Node'],
    [CORE + 'NodeList', '', 'v1', 'NodeList'],
    [CORE + 'Endpoints', '', 'v1', 'Endpoints'],
    [CORE + 'EndpointsList', '', 'v1', 'EndpointsList'],
    [CORE + 'Binding', '', 'v1', 'Binding'],
    ['io.k8s.api.coordination.v1.Lease', 'coordination.k8s.io', 'v1', 'Lease'],
    ['io.k8s.api.coordination.v1.LeaseList', 'coordination.k8s.io', 'v1', 'LeaseList'],
    [APPS + 'Deployment', 'apps', 'v1', 'Deployment'],
    [APPS + 'DeploymentList', 'apps', 'v1', 'DeploymentList'],
    ['io.k8s.api.policy.v1.Eviction', 'policy', 'v1', 'Eviction'],
    ['io.k8s.api.autoscaling.v1.Scale', 'autoscaling', 'v1', 'Scale'],
    [META + 'Status', '', 'v1', 'Status'],
  ];
  for (const [name, group, version, kind] of kinds) {
    test(`${name} carries x-kubernetes-group-version-kind ${group}/${version} ${kind}`, () => {
      assert.deepEqual(defs[name]!['x-kubernetes-group-version-kind'], [{ group, kind, version }]);
      const props = defs[name]!.properties!;
      assert.ok(props.apiVersion && props.kind && props.metadata, 'apiVersion, kind and metadata');
    });
  }

  test('a GVK sits only on kinds with a kind field (and on WatchEvent, as upstream)', () => {
    for (const [name, schema] of Object.entries(defs)) {
      if (schema['x-kubernetes-group-version-kind'] === undefined || name === META + 'WatchEvent') continue;
      assert.ok(schema.properties?.kind, `${name} has a GVK but no kind field`);
    }
  });

  interface Topology {
    strategy?: string;
    mergeKey?: string;
    listType?: string;
    mapKeys?: string[];
  }
  const lists: [string, string, Topology][] = [
    [CORE + 'PodSpec', 'containers', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'initContainers', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'ephemeralContainers', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'volumes', { strategy: 'merge,retainKeys', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'imagePullSecrets', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'hostAliases', { strategy: 'merge', mergeKey: 'ip', listType: 'map', mapKeys: ['ip'] }],
    [CORE + 'PodSpec', 'topologySpreadConstraints', { strategy: 'merge', mergeKey: 'topologyKey', listType: 'map', mapKeys: ['topologyKey', 'whenUnsatisfiable'] }],
    [CORE + 'PodSpec', 'resourceClaims', { strategy: 'merge,retainKeys', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'schedulingGates', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodSpec', 'tolerations', { listType: 'atomic' }],
    [CORE + 'PodSpec', 'readinessGates', { listType: 'atomic' }],
    [CORE + 'Container', 'env', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'Container', 'envFrom', { listType: 'atomic' }],
    [CORE + 'Container', 'ports', { strategy: 'merge', mergeKey: 'containerPort', listType: 'map', mapKeys: ['containerPort', 'protocol'] }],
    [CORE + 'Container', 'volumeMounts', { strategy: 'merge', mergeKey: 'mountPath', listType: 'map', mapKeys: ['mountPath'] }],
    [CORE + 'Container', 'volumeDevices', { strategy: 'merge', mergeKey: 'devicePath', listType: 'map', mapKeys: ['devicePath'] }],
    [CORE + 'Container', 'command', { listType: 'atomic' }],
    [CORE + 'Container', 'args', { listType: 'atomic' }],
    [CORE + 'EphemeralContainer', 'env', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'ResourceRequirements', 'claims', { listType: 'map', mapKeys: ['name'] }],
    [CORE + 'PodStatus', 'conditions', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [CORE + 'PodStatus', 'podIPs', { strategy: 'merge', mergeKey: 'ip', listType: 'map', mapKeys: ['ip'] }],
    [CORE + 'PodStatus', 'hostIPs', { strategy: 'merge', mergeKey: 'ip', listType: 'atomic' }],
    [CORE + 'PodStatus', 'containerStatuses', { listType: 'atomic' }],
    [META + 'ObjectMeta', 'finalizers', { strategy: 'merge', listType: 'set' }],
    [META + 'ObjectMeta', 'ownerReferences', { strategy: 'merge', mergeKey: 'uid', listType: 'map', mapKeys: ['uid'] }],
    [META + 'ObjectMeta', 'managedFields', { listType: 'atomic' }],
    [CORE + 'ServiceSpec', 'ports', { strategy: 'merge', mergeKey: 'port', listType: 'map', mapKeys: ['port', 'protocol'] }],
    [CORE + 'ServiceSpec', 'clusterIPs', { listType: 'atomic' }],
    [CORE + 'ServiceStatus', 'conditions', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [CORE + 'ServiceAccount', 'secrets', { strategy: 'merge', mergeKey: 'name', listType: 'map', mapKeys: ['name'] }],
    [CORE + 'ServiceAccount', 'imagePullSecrets', { listType: 'atomic' }],
    [CORE + 'NodeSpec', 'podCIDRs', { strategy: 'merge', listType: 'set' }],
    [CORE + 'NodeSpec', 'taints', { listType: 'atomic' }],
    [CORE + 'NodeStatus', 'conditions', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [CORE + 'NodeStatus', 'addresses', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [CORE + 'NamespaceStatus', 'conditions', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [CORE + 'Endpoints', 'subsets', { listType: 'atomic' }],
    [APPS + 'DeploymentStatus', 'conditions', { strategy: 'merge', mergeKey: 'type', listType: 'map', mapKeys: ['type'] }],
    [META + 'LabelSelector', 'matchExpressions', { listType: 'atomic' }],
  ];
  for (const [definition, field, want] of lists) {
    test(`${definition.split('.').pop()}.${field}: ${JSON.stringify(want)}`, () => {
      const s = property(definition, field);
      assert.equal(s.type, 'array');
      assert.deepEqual(
        {
          strategy: s['x-kubernetes-patch-strategy'],
          mergeKey: s['x-kubernetes-patch-merge-key'],
          listType: s['x-kubernetes-list-type'],
          mapKeys: s['x-kubernetes-list-map-keys'],
        },
        { strategy: want.strategy, mergeKey: want.mergeKey, listType: want.listType, mapKeys: want.mapKeys },
      );
    });
  }

  test('DeploymentSpec.strategy keeps only the keys given (retainKeys)', () => {
    const s = property(APPS + 'DeploymentSpec', 'strategy');
    assert.equal(s['x-kubernetes-patch-strategy'], 'retainKeys');
    assert.equal(refName(s.$ref!), APPS + 'DeploymentStrategy');
  });

  const atomicStructs = [
    META + 'LabelSelector', META + 'OwnerReference', CORE + 'ObjectReference', CORE + 'LocalObjectReference',
    CORE + 'NodeSelector', CORE + 'NodeSelectorTerm', CORE + 'ConfigMapKeySelector', CORE + 'SecretKeySelector',
    CORE + 'ObjectFieldSelector', CORE + 'ResourceFieldSelector', CORE + 'EndpointAddress', CORE + 'EndpointPort',
  ];
  for (const name of atomicStructs) {
    test(`${name.split('.').pop()} is an atomic struct`, () => {
      assert.equal(defs[name]!['x-kubernetes-map-type'], 'atomic');
    });
  }

  test('selectors given as maps are atomic maps', () => {
    assert.equal(property(CORE + 'ServiceSpec', 'selector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(property(CORE + 'PodSpec', 'nodeSelector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(property(META + 'ObjectMeta', 'labels')['x-kubernetes-map-type'], undefined);
  });

  const requiredFields: [string, string[]][] = [
    [CORE + 'Container', ['name']],
    [CORE + 'PodSpec', ['containers']],
    [CORE + 'ContainerPort', ['containerPort']],
    [CORE + 'ServicePort', ['port']],
    [CORE + 'EnvVar', ['name']],
    [CORE + 'Volume', ['name']],
    [CORE + 'VolumeMount', ['name', 'mountPath']],
    [META + 'OwnerReference', ['apiVersion', 'kind', 'name', 'uid']],
    [APPS + 'DeploymentSpec', ['selector', 'template']],
    [CORE + 'Event', ['metadata', 'involvedObject']],
    [CORE + 'Taint', ['key', 'effect']],
  ];
  for (const [name, required] of requiredFields) {
    test(`${name.split('.').pop()} requires ${required.join(', ')}`, () => {
      assert.deepEqual(defs[name]!.required, required);
    });
  }

  test('port protocols default to TCP, so list-map keys are complete', () => {
    assert.equal(property(CORE + 'ContainerPort', 'protocol').default, 'TCP');
    assert.equal(property(CORE + 'ServicePort', 'protocol').default, 'TCP');
  });

  test('IntOrString is an int-or-string; Quantity a string or a number', () => {
    const intOrString = defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!;
    assert.equal(intOrString['x-kubernetes-int-or-string'], true);
    assert.equal(intOrString.format, 'int-or-string');
    assert.equal(intOrString.type, undefined);
    const quantity = defs['io.k8s.apimachinery.pkg.api.resource.Quantity']!;
    assert.deepEqual(quantity.oneOf, [{ type: 'string' }, { type: 'number' }]);
    assert.equal(refName(property(CORE + 'ServicePort', 'targetPort').$ref!), 'io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    const limitValue = property(CORE + 'ResourceRequirements', 'limits').additionalProperties as Schema;
    assert.equal(refName(limitValue.$ref!), 'io.k8s.apimachinery.pkg.api.resource.Quantity');
  });

  test('free-form meta types keep unknown fields (pruning must not empty them)', () => {
    assert.equal(defs[META + 'FieldsV1']!['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(defs['io.k8s.apimachinery.pkg.runtime.RawExtension']!['x-kubernetes-preserve-unknown-fields'], true);
  });

  test('Kubernetes 1.33 fields are present', () => {
    for (const [definition, path] of [
      [CORE + 'Container', 'resizePolicy'],
      [CORE + 'Container', 'restartPolicy'],
      [CORE + 'Lifecycle', 'stopSignal'],
      [CORE + 'LifecycleHandler', 'sleep'],
      [CORE + 'PodSpec', 'resources'],
      [CORE + 'PodSpec', 'hostUsers'],
      [CORE + 'PodSecurityContext', 'supplementalGroupsPolicy'],
      [CORE + 'PodSecurityContext', 'seLinuxChangePolicy'],
      [CORE + 'SecurityContext', 'appArmorProfile'],
      [CORE + 'Volume', 'image'],
      [CORE + 'VolumeMount', 'recursiveReadOnly'],
      [CORE + 'ContainerStatus', 'volumeMounts'],
      [CORE + 'ContainerStatus', 'allocatedResourcesStatus'],
      [CORE + 'PodStatus', 'observedGeneration'],
      [CORE + 'ServiceSpec', 'trafficDistribution'],
      [CORE + 'NodeStatus', 'runtimeHandlers'],
      [CORE + 'NodeSystemInfo', 'swap'],
      ['io.k8s.api.coordination.v1.LeaseSpec', 'preferredHolder'],
      [APPS + 'DeploymentStatus', 'terminatingReplicas'],
      [META + 'DeleteOptions', 'ignoreStoreReadErrorWithClusterBreakingPotential'],
    ]) {
      property(definition!, path!);
    }
  });

  test('a deployment reaches the whole pod template through refs', () => {
    const reachable = reachableDefinitions(defs, [APPS + 'Deployment']);
    for (const name of [CORE + 'PodSpec', CORE + 'Container', CORE + 'Volume', CORE + 'Probe', META + 'ObjectMeta', 'io.k8s.apimachinery.pkg.util.intstr.IntOrString']) {
      assert.ok(reachable.includes(name), name);
    }
    assert.ok(!reachable.includes(CORE + 'Node'));
  });
});

describe('resolve', () => {
  test('follows a $ref to its definition', () => {
    assert.equal(resolve(defs, { $ref: `#/components/schemas/${CORE}PodSpec`, description: 'x' }), defs[CORE + 'PodSpec']);
  });

  test('follows the v3 allOf wrapper and Swagger refs', () => {
    assert.equal(resolve(defs, { allOf: [{ $ref: `#/components/schemas/${CORE}Pod` }] }), defs[CORE + 'Pod']);
    assert.equal(resolve(defs, { $ref: `#/definitions/${CORE}Pod` }), defs[CORE + 'Pod']);
  });

  test('returns a schema without a reference unchanged', () => {
    const schema: Schema = { type: 'string' };
    assert.equal(resolve(defs, schema), schema);
  });

  test('follows chains and rejects cycles and unknown names', () => {
    const chain = { a: { $ref: '#/components/schemas/b' }, b: { type: 'string' as const } };
    assert.deepEqual(resolve(chain, { $ref: '#/components/schemas/a' }), { type: 'string' });
    assert.throws(() => resolve({ a: { $ref: '#/components/schemas/a' } }, { $ref: '#/components/schemas/a' }), /cycle/);
    assert.throws(() => resolve(defs, { $ref: '#/components/schemas/nope' }), /unknown definition nope/);
    assert.throws(() => refName('http://example.com/x'), /unsupported/);
  });
});
