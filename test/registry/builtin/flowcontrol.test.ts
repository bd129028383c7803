import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../../src/registry/flowcontrol-config.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const flowSchemas = builtinType('flowschemas');
const priorityLevels = builtinType('prioritylevelconfigurations');

const flowSchema = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, spec }) as unknown as KubeObject;
const priorityLevel = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec }) as unknown as KubeObject;
const groupRule = { subjects: [{ kind: 'Group', group: { name: 'dev' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] };

test('a FlowSchema gets v1 defaults: matchingPrecedence 1000', async () => {
  const { obj, causes } = await storeCreate(flowSchemas, flowSchema('dev', { priorityLevelConfiguration: { name: 'workload' }, rules: [groupRule] }));
  assert.deepEqual(causes, []);
  assert.equal((obj.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
  // 0 is Go's absent value: defaulted too.
  const zero = await storeCreate(flowSchemas, flowSchema('dev', { matchingPrecedence: 0, priorityLevelConfiguration: { name: 'workload' } }));
  assert.equal((zero.obj.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
});

test('a FlowSchema is validated as upstream validates it', async () => {
  const bad = flowSchema('dev', {
    matchingPrecedence: 1,
    distinguisherMethod: { type: 'ByPod' },
    priorityLevelConfiguration: { name: 'Work_Load' },
    rules: [
      { subjects: [] },
      {
        subjects: [
          { kind: 'ServiceAccount', serviceAccount: { name: '', namespace: '' }, user: { name: 'x' } },
          { kind: 'Robot' },
          { kind: 'User' },
        ],
        resourceRules: [{ verbs: ['get', '*'], apiGroups: ['*', 'apps'], resources: [], namespaces: ['Team_A'] }],
        nonResourceRules: [{ verbs: ['fetch'], nonResourceURLs: ['healthz', '/a//b', '/a*'] }],
      },
    ],
  });
  assert.deepEqual(fields((await storeCreate(flowSchemas, bad)).causes), [
    "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
    'spec.distinguisherMethod.type: Unsupported value: {"Type":"ByPod"}: supported values: "ByNamespace", "ByUser"',
    "spec.priorityLevelConfiguration.name: Invalid value: \"Work_Load\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'spec.rules[0].subjects: Required value: subjects must contain at least one value',
    'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    'spec.rules[1].subjects[0].serviceAccount.name: Required value',
    'spec.rules[1].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
    "spec.rules[1].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
    'spec.rules[1].subjects[1].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
    "spec.rules[1].subjects[2].user: Required value: user is required when subject kind is 'User'",
    'spec.rules[1].resourceRules[0].verbs: Invalid value: ["get","*"]: if \'*\' is present, must not specify other verbs',
    'spec.rules[1].resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other api groups',
    'spec.rules[1].resourceRules[0].resources: Required value: resource rules must supply at least one resource',
    "spec.rules[1].resourceRules[0].namespaces[0]: Invalid value: \"Team_A\": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    'spec.rules[1].nonResourceRules[0].verbs: Unsupported value: ["fetch"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
    'spec.rules[1].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
    'spec.rules[1].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a//b": must not contain double slash',
    'spec.rules[1].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a*": wildcard can only do suffix matching',
  ]);
  assert.deepEqual(fields((await storeCreate(flowSchemas, flowSchema('dev', { matchingPrecedence: 10_001 }))).causes), [
    'spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
    'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
  ]);
  // A cluster-scoped rule needs no namespace; a service account may be every one.
  const ok = flowSchema('dev', {
    priorityLevelConfiguration: { name: 'workload' },
    rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*', '/'] }] }],
  });
  assert.deepEqual((await storeCreate(flowSchemas, ok)).causes, []);
});

test('a PriorityLevelConfiguration gets v1 defaults', async () => {
  const limited = await storeCreate(priorityLevels, priorityLevel('workload', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }));
  assert.deepEqual(limited.causes, []);
  assert.deepEqual(limited.obj.spec, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } },
  });
  // v1's nominalConcurrencyShares is a pointer: an explicit 0 stays.
  const jail = await storeCreate(priorityLevels, priorityLevel('jail', { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } }));
  assert.deepEqual(jail.causes, []);
  assert.equal((jail.obj.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares, 0);
  const exempt = await storeCreate(priorityLevels, priorityLevel('exempt', { type: 'Exempt', exempt: {} }));
  assert.deepEqual(exempt.obj.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
});

test('a PriorityLevelConfiguration is validated as upstream validates it', async () => {
  const check = async (name: string, spec: Record<string, unknown>) => fields((await storeCreate(priorityLevels, priorityLevel(name, spec))).causes);
  assert.deepEqual(await check('exempt', { type: 'Limited', exempt: {}, limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -5, limitResponse: { type: 'Reject', queuing: { queues: 1 } } } }), [
    "spec.type: Invalid value: \"Limited\": type must be 'Exempt' if and only if name is 'exempt'",
    'spec.exempt: Forbidden: must be nil if the type is Limited',
    'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
    'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
    'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
    'spec.limited.borrowingLimitPercent: Invalid value: -5: if specified, must be a non-negative integer',
    'spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":-1,"LimitResponse":{"Type":"Reject","Queuing":{"Queues":1,"HandSize":8,"QueueLengthLimit":50}},"LendablePercent":101,"BorrowingLimitPercent":-5},"Exempt":{"NominalConcurrencyShares":0,"LendablePercent":0}}: spec of \'exempt\' except the \'spec.exempt\' field must equal the fixed value',
  ]);
  assert.deepEqual(await check('workload', { type: 'Limited' }), ['spec.limited: Required value: must not be empty when type is Limited']);
  assert.deepEqual(await check('workload', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } }), [
    'spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited',
  ]);
  assert.deepEqual(await check('workload', { type: 'Limited', limited: { limitResponse: { type: 'Drop' } } }), [
    'spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"',
  ]);
  assert.deepEqual(await check('workload', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -1 } } } }), [
    'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive',
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
  ]);
  // ceil(log2(10,000,000) × 3) = 70 bits, more than a 60-bit hash deals.
  assert.deepEqual(await check('workload', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 10_000_000, handSize: 3 } } } }), [
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy bits of deckSize 10000000 and handSize 3 should not be greater than 60',
  ]);
  assert.deepEqual(await check('workload', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 10_000_001 } } } }), [
    'spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000',
    // handSize took its default, 8: ceil(log2(10,000,001) × 8) = 187 bits.
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000001 and handSize 8 should not be greater than 60',
  ]);
  assert.deepEqual(await check('workload', { type: 'Exempt', limited: {}, exempt: { nominalConcurrencyShares: -1, lendablePercent: -1 } }), [
    "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
    'spec.limited: Forbidden: must be nil if the type is not Limited',
    'spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
    'spec.exempt.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive',
  ]);
  assert.deepEqual(await check('workload', { type: 'Sometimes' }), ['spec.type: Unsupported value: "Sometimes": supported values: "Exempt", "Limited"']);
});

test('status conditions need a type, once each', async () => {
  const old = priorityLevel('workload', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } });
  const input = { ...old, status: { conditions: [{ type: 'Ready' }, { type: 'Ready' }, { type: '' }] } } as KubeObject;
  assert.deepEqual(fields((await storeUpdate(priorityLevels, input, old, 'status')).causes), [
    'status.conditions[1].type: Duplicate value: "Ready"',
    'status.conditions[2].type: Required value: must not be empty',
  ]);
});

test('the mandatory and suggested objects made at start-up are valid, and defaulting changes none of them', async () => {
  for (const level of [...mandatoryPriorityLevels, ...suggestedPriorityLevels]) {
    const made = await storeCreate(priorityLevels, structuredClone(level));
    assert.deepEqual(made.causes, [], level.metadata.name);
    assert.deepEqual(made.obj?.spec, level.spec, level.metadata.name);
  }
  for (const schema of [...mandatoryFlowSchemas, ...suggestedFlowSchemas]) {
    const made = await storeCreate(flowSchemas, structuredClone(schema));
    assert.deepEqual(made.causes, [], schema.metadata.name);
    assert.deepEqual(made.obj?.spec, schema.spec, schema.metadata.name);
  }
});
