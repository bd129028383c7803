// Strategies of policy/v1 poddisruptionbudgets and admissionregistration.k8s.io/v1
// webhook configurations: defaults and validation, case by case.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const pdbs = builtinType('poddisruptionbudgets');
const mutating = builtinType('mutatingwebhookconfigurations');
const validating = builtinType('validatingwebhookconfigurations');

function pdb(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b', namespace: 'ns' }, spec } as KubeObject;
}

describe('poddisruptionbudgets', () => {
  test('a new budget gets generation 1 and a zero status', async () => {
    const { obj, causes } = await storeCreate(pdbs, { ...pdb({ minAvailable: 1 }), status: { disruptionsAllowed: 9 } } as KubeObject);
    assert.deepEqual(causes, []);
    assert.equal(obj.metadata.generation, 1);
    assert.deepEqual(obj.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ['minAvailable as a number', { minAvailable: 2 }, []],
    ['maxUnavailable as a percentage', { maxUnavailable: '25%' }, []],
    ['negative minAvailable', { minAvailable: -1 }, ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']],
    ['percentage above 100', { minAvailable: '101%' }, ['spec.minAvailable: Invalid value: "101%": must not be greater than 100%']],
    ['not a percentage', { maxUnavailable: 'half' }, ["spec.maxUnavailable: Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]],
    ['an invalid selector operator', { selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, ['spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']],
    ['an unknown unhealthyPodEvictionPolicy', { minAvailable: 1, unhealthyPodEvictionPolicy: 'Sometimes' }, ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"']],
  ];
  for (const [name, spec, expected] of cases) {
    test(name, async () => assert.deepEqual(fields((await storeCreate(pdbs, pdb(spec))).causes), expected));
  }

  test('both minAvailable and maxUnavailable', async () => {
    const [cause] = (await storeCreate(pdbs, pdb({ minAvailable: 1, maxUnavailable: '10%' }))).causes;
    assert.equal(cause!.field, 'spec');
    assert.equal(cause!.message, 'Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":"10%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set');
  });

  test('both minAvailable and maxUnavailable: the whole internal spec, its selector as a LabelSelector marshals', async () => {
    const spec = { maxUnavailable: 0, minAvailable: '50%', selector: { matchLabels: { b: '2', a: '1' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' };
    const [cause] = (await storeCreate(pdbs, pdb(spec))).causes;
    assert.equal(cause!.message, 'Invalid value: {"MinAvailable":"50%","Selector":{"matchLabels":{"a":"1","b":"2"}},"MaxUnavailable":0,"UnhealthyPodEvictionPolicy":"AlwaysAllow"}: minAvailable and maxUnavailable cannot be both set');
  });

  test('spec changes bump the generation and keep the status; status writes keep the spec', async () => {
    const old = { ...(await storeCreate(pdbs, pdb({ minAvailable: 1 }))).obj, status: { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 } } as KubeObject;
    const spec = await storeUpdate(pdbs, { ...old, spec: { minAvailable: 2 }, status: {} } as KubeObject, old);
    assert.equal(spec.obj.metadata.generation, 2);
    assert.deepEqual(spec.obj.status, old.status);
    const same = await storeUpdate(pdbs, { ...old } as KubeObject, old);
    assert.equal(same.obj.metadata.generation, 1);
    const status = await storeUpdate(pdbs, { ...old, spec: { minAvailable: 9 }, status: { ...old.status as object, disruptionsAllowed: 2 } } as KubeObject, old, 'status');
    assert.deepEqual(status.causes, []);
    assert.deepEqual(status.obj.spec, { minAvailable: 1 });
    assert.equal((status.obj.status as { disruptionsAllowed: number }).disruptionsAllowed, 2);
    const invalid = await storeUpdate(pdbs, { ...old, status: { ...old.status as object, disruptionsAllowed: -1 } } as KubeObject, old, 'status');
    assert.deepEqual(fields(invalid.causes), ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
  });
});

function webhook(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'hook.example.com',
    clientConfig: { url: 'https://hooks.example.com/validate' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function configuration(kind: 'Mutating' | 'Validating', webhooks: Record<string, unknown>[]): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name: 'c' }, webhooks } as KubeObject;
}

describe('webhook configurations', () => {
  test('defaults: failurePolicy, matchPolicy, selectors, timeout, reinvocation, rule scope, service port', async () => {
    const { obj, causes } = await storeCreate(mutating, configuration('Mutating', [webhook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } })]));
    assert.deepEqual(causes, []);
    assert.deepEqual((obj as any).webhooks[0], {
      ...webhook(),
      clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
    assert.equal(obj.metadata.generation, 1);
    const validatingHook = ((await storeCreate(validating, configuration('Validating', [webhook()]))).obj as any).webhooks[0];
    assert.equal(validatingHook.reinvocationPolicy, undefined, 'only mutating webhooks have a reinvocationPolicy');
  });

  const cases: [string, Record<string, unknown>[], string[]][] = [
    ['a valid webhook', [webhook()], []],
    ['a name of fewer than three segments', [webhook({ name: 'hook.example' })], ['webhooks[0].name: Invalid value: "hook.example": should be a domain with at least three segments separated by dots']],
    ['no name', [webhook({ name: '' })], ['webhooks[0].name: Required value']],
    ['duplicate names', [webhook(), webhook()], ['webhooks[1].name: Duplicate value: "hook.example.com"']],
    ['no sideEffects', [webhook({ sideEffects: undefined })], ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']],
    ['sideEffects Unknown', [webhook({ sideEffects: 'Unknown' })], ['webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"']],
    ['a timeout above 30 s', [webhook({ timeoutSeconds: 31 })], ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']],
    ['an unknown failurePolicy', [webhook({ failurePolicy: 'Maybe' })], ['webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']],
    ['both url and service', [webhook({ clientConfig: { url: 'https://a.b/c', service: { namespace: 'n', name: 's' } } })], ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']],
    ['an http URL', [webhook({ clientConfig: { url: 'http://hooks.example.com/x' } })], ["webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]],
    ['a URL with a query', [webhook({ clientConfig: { url: 'https://hooks.example.com/x?a=b' } })], ['webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL']],
    ['a service without a name', [webhook({ clientConfig: { service: { namespace: 'n', name: '' } } })], ['webhooks[0].clientConfig.service.name: Required value: service name is required']],
    ['a service path without a leading slash', [webhook({ clientConfig: { service: { namespace: 'n', name: 's', path: 'x' } } })], [
      "webhooks[0].clientConfig.service.path: Invalid value: \"x\": must start with a '/'",
      // Upstream checks the segments after the first character: "x" leaves one, empty.
      'webhooks[0].clientConfig.service.path: Invalid value: "x": segment[0] may not be empty',
    ]],
    ['no admissionReviewVersions', [webhook({ admissionReviewVersions: [] })], ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']],
    ['only unknown review versions', [webhook({ admissionReviewVersions: ['v2'] })], ['webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1']],
    ['a rule without operations', [webhook({ rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], ['webhooks[0].rules[0].operations: Required value']],
    ['an unknown operation', [webhook({ rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], ['webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"']],
    ['"*" with other resources', [webhook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }] })], ['webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources']],
    ['"pods/*" with "pods/status"', [webhook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'pods/status'] }] })], ["webhooks[0].rules[0].resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status"]],
    ['an unknown scope', [webhook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Global' }] })], ['webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"']],
    ['an invalid namespaceSelector', [webhook({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })], ["webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
    ['matchConditions without an expression', [webhook({ matchConditions: [{ name: 'c' }] })], ['webhooks[0].matchConditions[0].expression: Required value']],
    // request is upstream's kubernetes.AdmissionRequest: its dryRun is a bool, not a string.
    ['matchConditions over request\'s typed fields', [webhook({ matchConditions: [{ name: 'a', expression: 'request.dryRun' }, { name: 'b', expression: "request.dryRun == 'x'" }] })], [
      "webhooks[0].matchConditions[1].expression: Invalid value: \"request.dryRun == 'x'\": compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(bool, string)'\n | request.dryRun == 'x'\n | ...............^",
    ]],
  ];
  for (const [name, hooks, expected] of cases) {
    test(name, async () => assert.deepEqual(fields((await storeCreate(validating, configuration('Validating', hooks))).causes), expected));
  }

  test('an unknown reinvocationPolicy (mutating only)', async () => {
    assert.deepEqual(fields((await storeCreate(mutating, configuration('Mutating', [webhook({ reinvocationPolicy: 'Always' })]))).causes),
      ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']);
  });

  test('the generation moves with the webhooks only', async () => {
    const old = (await storeCreate(validating, configuration('Validating', [webhook()]))).obj;
    assert.equal((await storeUpdate(validating, { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } } as KubeObject, old)).obj.metadata.generation, 1);
    assert.equal((await storeUpdate(validating, { ...old, webhooks: [webhook({ timeoutSeconds: 5 })] } as KubeObject, old)).obj.metadata.generation, 2);
  });
});
