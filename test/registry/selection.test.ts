import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector, matchFields } from '../../src/api/fields.ts';
import { builtinResourceTypes } from '../../src/registry/builtin/index.ts';
import { checkFieldSelector, objectFieldSet } from '../../src/registry/selection.ts';

const types = builtinResourceTypes();
const byResource = (r: string) => types.find((t) => t.resource === r)!;

const cases: { resource: string; selector: string; error?: string }[] = [
  { resource: 'pods', selector: 'spec.nodeName=n1,status.phase!=Running,metadata.namespace=default' },
  { resource: 'pods', selector: 'status.podIPs=10.0.0.1' },
  { resource: 'pods', selector: 'spec.containers=x', error: 'field label not supported: spec.containers' },
  { resource: 'events', selector: 'involvedObject.name=web,involvedObject.namespace=default,involvedObject.kind=Pod,involvedObject.uid=u' },
  { resource: 'nodes', selector: 'spec.unschedulable=false,metadata.name=n1' },
  { resource: 'nodes', selector: 'metadata.namespace=', error: 'field label not supported: metadata.namespace' },
  { resource: 'namespaces', selector: 'status.phase=Active' },
  { resource: 'namespaces', selector: 'name=a', error: 'field label not supported: name' },
  { resource: 'secrets', selector: 'type=kubernetes.io/tls' },
  { resource: 'services', selector: 'spec.type=NodePort,spec.clusterIP=None' },
  { resource: 'configmaps', selector: 'metadata.name=a' },
  { resource: 'configmaps', selector: 'data.a=b', error: '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"' },
  { resource: 'deployments', selector: 'spec.replicas=1', error: '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"' },
  { resource: 'leases', selector: 'metadata.namespace=kube-node-lease' },
];

for (const c of cases) {
  test(`${c.resource} ${c.error ? 'refuses' : 'accepts'} field selector "${c.selector}"`, () => {
    const sel = parseFieldSelector(c.selector);
    if (c.error) assert.throws(() => checkFieldSelector(byResource(c.resource), sel), { message: c.error });
    else checkFieldSelector(byResource(c.resource), sel);
  });
}

test('cluster-scoped objects have no metadata.namespace field, so only "" matches it', () => {
  const nodes = byResource('nodes');
  const fields = objectFieldSet(nodes, { metadata: { name: 'n1' }, spec: { unschedulable: true } });
  assert.deepEqual(fields, { 'metadata.name': 'n1', 'spec.unschedulable': 'true' });
  assert.ok(matchFields(parseFieldSelector('metadata.namespace='), fields));
});

test('kubectl get -w on one object selects it by metadata.name', () => {
  const cm = byResource('configmaps');
  const sel = parseFieldSelector('metadata.name=a');
  assert.ok(matchFields(sel, objectFieldSet(cm, { metadata: { name: 'a', namespace: 'x' } })));
  assert.ok(!matchFields(sel, objectFieldSet(cm, { metadata: { name: 'b', namespace: 'x' } })));
});
