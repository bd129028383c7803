// The annotations admission webhooks and ValidatingAdmissionPolicies give a request's audit
// event, as kube-apiserver's dispatchers make them: each mutating webhook call and its patch,
// calls that failed open, a webhook's own auditAnnotations, a policy's auditAnnotations and
// its Audit action's validation failure; and, end to end, which audit levels keep them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AdmissionChain, type AdmissionAttributes } from '../../src/admission/chain.ts';
import { validatingAdmissionPolicy, type PolicySources } from '../../src/admission/validating-admission-policy.ts';
import { WebhookAdmission } from '../../src/admission/webhook.ts';
import { patchAnnotationJson } from '../../src/admission/webhook-review.ts';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import { runInRequestContext, type AnnotationLevel } from '../../src/api/request-context.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { allow, deny, patch, startWebhookServer, type WebhookAnswer, type WebhookServer } from '../helpers/webhook-server.ts';

let hooks: WebhookServer;
before(async () => {
  hooks = await startWebhookServer();
});
after(async () => {
  await hooks?.close();
});

/** Runs `fn` as an audited request; answers what it annotated (first values kept, as the audit event keeps them) and at which level. */
async function audited(fn: () => Promise<unknown>): Promise<{ annotations: Record<string, string>; levels: Record<string, AnnotationLevel | undefined>; error?: unknown }> {
  const annotations: Record<string, string> = {};
  const levels: Record<string, AnnotationLevel | undefined> = {};
  const context = {
    user: { name: 'tester', uid: '', groups: [] }, addWarning: () => {},
    addAuditAnnotation: (key: string, value: string, level?: AnnotationLevel) => {
      if (key in annotations) return;
      annotations[key] = value;
      levels[key] = level;
    },
  };
  try {
    await runInRequestContext(context, fn);
  } catch (error) {
    return { annotations, levels, error };
  }
  return { annotations, levels };
}

function configuration(name: string, webhooks: Record<string, unknown>[]): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'X', metadata: { name, uid: name, resourceVersion: '1' }, webhooks } as KubeObject;
}

function hook(name: string, urlPath: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hooks.url}${urlPath}`, caBundle: hooks.caBundle },
    rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', timeoutSeconds: 10,
    ...extra,
  };
}

const secretsOnly = [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], scope: '*' }];

function plugins(mutating: KubeObject[], validating: KubeObject[], log: (message: string) => void = () => {}): WebhookAdmission {
  return new WebhookAdmission({ mutating: { list: async () => mutating }, validating: { list: async () => validating }, namespaceLabels: async () => ({}), log });
}

function attrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: 'ConfigMap',
    namespace: 'default', name: 'cm', namespaced: true, dryRun: false, oldObject: undefined,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels: { kept: 'yes' } } },
    ...overrides,
  };
}

/** A mutating answer whose patch is this JSON text, as sent. */
function rawPatch(text: string): WebhookAnswer {
  return { response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(text).toString('base64') } };
}

const mutation = (at: string) => `mutation.webhook.admission.k8s.io/${at}`;
const patched = (at: string) => `patch.webhook.admission.k8s.io/${at}`;

describe('mutating webhooks', () => {
  test('each call is noted under mutation.webhook.admission.k8s.io/round_0_index_<its place among all mutating webhooks>, a patch applied under patch.webhook.admission.k8s.io/ at level Request', async () => {
    hooks.handle('/m-allow', () => allow());
    // Keys out of order, spaces, a number as written, characters Go escapes.
    hooks.handle('/m-patch', () => rawPatch('[ {"value": {"b": "<&>", "a": 1.50}, "path": "/metadata/annotations", "op": "add"} ]'));
    const admission = plugins([
      configuration('b-config', [hook('unmatched.example.com', '/never', { rules: secretsOnly }), hook('patcher.example.com', '/m-patch')]),
      configuration('a-config', [hook('allower.example.com', '/m-allow')]),
    ], []);
    try {
      const a = attrs();
      const { annotations, levels } = await audited(() => new AdmissionChain([admission.mutating]).admit(a));
      assert.deepEqual(a.object!.metadata.annotations as unknown, { b: '<&>', a: 1.5 });
      assert.deepEqual(annotations, {
        [mutation('round_0_index_0')]: '{"configuration":"a-config","webhook":"allower.example.com","mutated":false}',
        [mutation('round_0_index_2')]: '{"configuration":"b-config","webhook":"patcher.example.com","mutated":true}',
        [patched('round_0_index_2')]: '{"configuration":"b-config","webhook":"patcher.example.com","patch":[{"op":"add","path":"/metadata/annotations","value":{"b":"\\u003c\\u0026\\u003e","a":1.50}}],"patchType":"JSONPatch"}',
      });
      assert.equal(levels[patched('round_0_index_2')], 'Request');
      assert.equal(levels[mutation('round_0_index_2')], undefined, 'the mutation annotation is kept from level Metadata');
    } finally {
      admission.close();
    }
  });

  test('the mutating phase run again is round 1; a patch that changes nothing is noted, with mutated false', async () => {
    hooks.handle('/r-again', () => patch([{ op: 'replace', path: '/metadata/labels/kept', value: 'yes' }]));
    hooks.handle('/r-changer', (review) => (review.request.object.metadata.labels?.changed === 'yes' ? allow() : patch([{ op: 'add', path: '/metadata/labels/changed', value: 'yes' }])));
    const admission = plugins([configuration('c', [
      hook('again.example.com', '/r-again', { reinvocationPolicy: 'IfNeeded' }),
      hook('changer.example.com', '/r-changer'),
    ])], []);
    try {
      const { annotations } = await audited(() => new AdmissionChain([admission.mutating]).admit(attrs()));
      const samePatch = '"patch":[{"op":"replace","path":"/metadata/labels/kept","value":"yes"}],"patchType":"JSONPatch"}';
      assert.deepEqual(annotations, {
        [mutation('round_0_index_0')]: '{"configuration":"c","webhook":"again.example.com","mutated":false}',
        [patched('round_0_index_0')]: `{"configuration":"c","webhook":"again.example.com",${samePatch}`,
        [mutation('round_0_index_1')]: '{"configuration":"c","webhook":"changer.example.com","mutated":true}',
        [patched('round_0_index_1')]: '{"configuration":"c","webhook":"changer.example.com","patch":[{"op":"add","path":"/metadata/labels/changed","value":"yes"}],"patchType":"JSONPatch"}',
        [mutation('round_1_index_0')]: '{"configuration":"c","webhook":"again.example.com","mutated":false}',
        [patched('round_1_index_0')]: `{"configuration":"c","webhook":"again.example.com",${samePatch}`,
      });
    } finally {
      admission.close();
    }
  });

  test('a call that fails open under failurePolicy Ignore is noted under failed-open.mutation.webhook.admission.k8s.io/ with the webhook\'s name', async () => {
    hooks.handle('/m-broken', () => ({ raw: 'not json' }));
    const admission = plugins([configuration('c', [hook('allower.example.com', '/m-allow'), hook('broken.example.com', '/m-broken', { failurePolicy: 'Ignore' })])], []);
    try {
      const { annotations, error } = await audited(() => admission.mutating.admit!(attrs()) as Promise<void>);
      assert.equal(error, undefined);
      assert.equal(annotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_1'], 'broken.example.com');
      assert.equal(annotations[mutation('round_0_index_1')], '{"configuration":"c","webhook":"broken.example.com","mutated":false}');
    } finally {
      admission.close();
    }
  });

  test('a refused call is noted as not mutating; failing closed notes no failed-open annotation', async () => {
    hooks.handle('/m-broken', () => ({ raw: 'not json' }));
    hooks.handle('/m-deny', () => deny('no'));
    const admission = plugins([configuration('c', [
      hook('broken.example.com', '/m-broken'),
    ])], []);
    const refusing = plugins([configuration('c', [hook('denier.example.com', '/m-deny')])], []);
    try {
      const failed = await audited(() => admission.mutating.admit!(attrs()) as Promise<void>);
      assert.ok(isStatusError(failed.error) && failed.error.code === 500);
      assert.deepEqual(failed.annotations, { [mutation('round_0_index_0')]: '{"configuration":"c","webhook":"broken.example.com","mutated":false}' });
      const refused = await audited(() => refusing.mutating.admit!(attrs()) as Promise<void>);
      assert.ok(isStatusError(refused.error) && refused.error.code === 403);
      assert.deepEqual(refused.annotations, { [mutation('round_0_index_0')]: '{"configuration":"c","webhook":"denier.example.com","mutated":false}' });
      // A dry run the webhook cannot take is a call too (upstream's callAttrMutatingHook notes it).
      const dry = plugins([configuration('c', [hook('effects.example.com', '/m-allow', { sideEffects: 'Unknown' })])], []);
      try {
        const dryRun = await audited(() => dry.mutating.admit!(attrs({ dryRun: true })) as Promise<void>);
        assert.ok(isStatusError(dryRun.error) && dryRun.error.code === 400);
        assert.deepEqual(dryRun.annotations, { [mutation('round_0_index_0')]: '{"configuration":"c","webhook":"effects.example.com","mutated":false}' });
      } finally {
        dry.close();
      }
    } finally {
      admission.close();
      refusing.close();
    }
  });
});

describe('the patch as the annotation writes it (json.Marshal of the jsonpatch.Patch decoded)', () => {
  const cases: Array<[string, string, string]> = [
    ['compact already: as sent', '[{"op":"add","path":"/a","value":"x"}]', '[{"op":"add","path":"/a","value":"x"}]'],
    ['an operation\'s keys sorted, spaces dropped', ' [ { "value" : 1 , "path" : "/a" , "op" : "add" } ] ', '[{"op":"add","path":"/a","value":1}]'],
    ['a key given twice: its last value', '[{"op":"add","path":"/a","value":1,"value":2}]', '[{"op":"add","path":"/a","value":2}]'],
    ['a value kept as written: its keys\' order, its numbers', '[{"op":"add","path":"/a","value":{"z":1e3,"a":[1, 2.0]}}]', '[{"op":"add","path":"/a","value":{"z":1e3,"a":[1,2.0]}}]'],
    ['strings untouched, brackets and quotes in them included', '[{"op":"add","path":"/a","value":"a ]} \\" b"}]', '[{"op":"add","path":"/a","value":"a ]} \\" b"}]'],
    ['Go\'s HTML escapes', '[{"op":"add","path":"/a","value":"<&>\u2028"}]', '[{"op":"add","path":"/a","value":"\\u003c\\u0026\\u003e\\u2028"}]'],
    ['an escaped key read as the key it names', '[{"o\\u0070":"remove","path":"/a"}]', '[{"op":"remove","path":"/a"}]'],
    ['a null operation', '[null]', '[null]'],
  ];
  for (const [name, text, expected] of cases) {
    test(name, () => assert.equal(patchAnnotationJson(text), expected));
  }
});

describe('validating webhooks', () => {
  test('a call failing open is noted under failed-open.validating.webhook.admission.k8s.io/round_0_index_<its place among the webhooks called>', async () => {
    hooks.handle('/v-broken', () => ({ raw: 'not json' }));
    const admission = plugins([], [configuration('c', [
      hook('unmatched.example.com', '/never', { rules: secretsOnly }),
      hook('allower.example.com', '/v-allow'),
      hook('broken.example.com', '/v-broken', { failurePolicy: 'Ignore' }),
    ])]);
    try {
      const { annotations, error } = await audited(() => admission.validating.validate!(attrs()) as Promise<void>);
      assert.equal(error, undefined);
      assert.deepEqual(annotations, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_1': 'broken.example.com' });
    } finally {
      admission.close();
    }
  });
});

describe('a webhook\'s auditAnnotations', () => {
  test('are noted as <webhook name>/<key>, from a refusal too; a key that does not make a qualified name is refused and logged', async () => {
    const auditAnnotations = { good: 'v', empty: null, 'bad/key': 'x', '': 'y', 'a b': 'z', [`${'k'.repeat(64)}`]: 'long' };
    hooks.handle('/aa-deny', () => ({ response: { allowed: false, status: { code: 403, message: 'no' }, auditAnnotations } }));
    hooks.handle('/aa-mutate', () => ({ response: { allowed: true, auditAnnotations: { seen: 'mutating' } } }));
    const logs: string[] = [];
    const admission = plugins([configuration('m', [hook('mutator.example.com', '/aa-mutate')])], [configuration('v', [hook('checker.example.com', '/aa-deny')])], (m) => logs.push(m));
    try {
      const mutated = await audited(() => admission.mutating.admit!(attrs()) as Promise<void>);
      assert.equal(mutated.annotations['mutator.example.com/seen'], 'mutating');
      const { annotations, error } = await audited(() => admission.validating.validate!(attrs()) as Promise<void>);
      assert.ok(isStatusError(error) && error.code === 403);
      assert.deepEqual(annotations, { 'checker.example.com/good': 'v', 'checker.example.com/empty': '' });
      const refused = logs.filter((l) => l.startsWith('Failed to set admission audit annotation'));
      assert.equal(refused.length, 4, logs.join('\n'));
      assert.ok(refused.includes("Failed to set admission audit annotation checker.example.com/bad/key to x for validating webhook checker.example.com: annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')"), refused.join('\n'));
      assert.ok(refused.some((l) => l.includes(`checker.example.com/${'k'.repeat(64)} to long`) && l.includes('name part must be no more than 63 characters')), refused.join('\n'));
    } finally {
      admission.close();
    }
  });

  test('nothing is composed for a request that is not audited', async () => {
    hooks.handle('/aa-quiet', () => ({ response: { allowed: true, auditAnnotations: { 'bad/key': 'x' } } }));
    const logs: string[] = [];
    const admission = plugins([], [configuration('v', [hook('quiet.example.com', '/aa-quiet')])], (m) => logs.push(m));
    try {
      await runInRequestContext({ user: { name: 'tester', uid: '', groups: [] }, addWarning: () => {} }, () => admission.validating.validate!(attrs()));
      assert.deepEqual(logs, []);
    } finally {
      admission.close();
    }
  });
});

describe('ValidatingAdmissionPolicy', () => {
  const policy = (name: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, ...spec },
  } as KubeObject);
  const binding = (name: string, policyName: string, validationActions: string[], extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions, ...extra },
  } as KubeObject);
  const params: Record<string, KubeObject> = {
    one: { apiVersion: 'example.com/v1', kind: 'Setting', metadata: { name: 'one', namespace: 'default' }, spec: { value: 'one', count: 3 } } as KubeObject,
    two: { apiVersion: 'example.com/v1', kind: 'Setting', metadata: { name: 'two', namespace: 'default' }, spec: { value: 'two' } } as KubeObject,
  };
  function sources(policies: KubeObject[], bindings: KubeObject[]): PolicySources {
    return {
      policies: () => policies, bindings: () => bindings, namespace: async () => undefined, log: () => {},
      params: async (_apiVersion, _kind, _namespace, name) => (name === undefined ? Object.values(params) : params[name] === undefined ? [] : [params[name]!]),
    };
  }
  const configMap = (data: Record<string, string>) => attrs({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data } as KubeObject });
  const failureKey = 'validation.policy.admission.k8s.io/validation_failure';

  test('the Audit action notes the request\'s first validation failure alone, as Go writes it, its expressionIndex always', async () => {
    const plugin = validatingAdmissionPolicy(sources([policy('p', {
      validations: [{ expression: "size(object.data) == 0", message: 'first <one>' }, { expression: "object.data.missing == 'x'" }],
    })], [binding('b', 'p', ['Audit'])]));
    const { annotations, error } = await audited(() => plugin.validate!(configMap({ a: '1' })) as Promise<void>);
    assert.equal(error, undefined);
    assert.equal(annotations[failureKey], '[{"message":"first \\u003cone\\u003e","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]');
    // The second validation's error alone: its index, though it is no false validation.
    const second = validatingAdmissionPolicy(sources([policy('p', {
      validations: [{ expression: 'true' }, { expression: "object.data.missing == 'x'" }],
    })], [binding('b', 'p', ['Audit'])]));
    const noted = await audited(() => second.validate!(configMap({ a: '1' })) as Promise<void>);
    assert.deepEqual(JSON.parse(noted.annotations[failureKey]!), [
      { message: "expression 'object.data.missing == 'x'' resulted in error: no such key: missing", policy: 'p', binding: 'b', expressionIndex: 1, validationActions: ['Audit'] },
    ]);
  });

  test('auditAnnotations are trimmed, left out when empty, and one key\'s distinct values over bindings and params joined with ", "', async () => {
    const plugin = validatingAdmissionPolicy(sources([policy('p', {
      paramKind: { apiVersion: 'example.com/v1', kind: 'Setting' },
      validations: [{ expression: 'true' }],
      auditAnnotations: [{ key: 'value', valueExpression: "'  ' + params.spec.value + '\\n'" }, { key: 'blank', valueExpression: "' '" }],
    })], [
      binding('b1', 'p', ['Deny'], { paramRef: { name: 'one' } }),
      binding('b2', 'p', ['Deny'], { paramRef: { selector: {} } }),
      binding('b3', 'p', ['Deny'], { paramRef: { name: 'one' } }),
    ]));
    const { annotations, error } = await audited(() => plugin.validate!(configMap({})) as Promise<void>);
    assert.equal(error, undefined);
    assert.deepEqual(annotations, { 'p/value': 'one, two' });
  });

  test('an auditAnnotation value is cut at 10 KiB of bytes, a character cut in two written as U+FFFD per byte left', async () => {
    const plugin = validatingAdmissionPolicy(sources([policy('p', {
      auditAnnotations: [{ key: 'long', valueExpression: `'x' + '${'é'.repeat(6000)}'` }],
    })], [binding('b', 'p', ['Deny'])]));
    const { annotations } = await audited(() => plugin.validate!(configMap({})) as Promise<void>);
    assert.equal(annotations['p/long'], `x${'é'.repeat(5119)}\ufffd`);
  });

  test('an auditAnnotation that fails denies whatever the binding\'s actions; one of another type than string denies even under failurePolicy Ignore', async () => {
    const failing = validatingAdmissionPolicy(sources([policy('p', {
      auditAnnotations: [{ key: 'k', valueExpression: 'object.data.missing' }],
    })], [binding('b', 'p', ['Audit'])]));
    const failed = await audited(() => failing.validate!(configMap({})) as Promise<void>);
    assert.ok(isStatusError(failed.error), String(failed.error));
    assert.equal(failed.error.code, 422);
    assert.equal(failed.error.message, 'configmaps "cm" is forbidden: ValidatingAdmissionPolicy \'p\' with binding \'b\' denied request: expression \'object.data.missing\' resulted in error: no such key: missing');
    assert.equal(failed.annotations[failureKey], undefined, 'not a validation failure');
    const typed = validatingAdmissionPolicy(sources([policy('p', {
      failurePolicy: 'Ignore', paramKind: { apiVersion: 'example.com/v1', kind: 'Setting' },
      auditAnnotations: [{ key: 'k', valueExpression: 'params.spec.count' }],
    })], [binding('b', 'p', ['Warn'], { paramRef: { name: 'one' } })]));
    const mistyped = await audited(() => typed.validate!(configMap({})) as Promise<void>);
    assert.ok(isStatusError(mistyped.error), String(mistyped.error));
    assert.equal(mistyped.error.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: valueExpression 'params.spec.count' resulted in unsupported return type: int. Return type must be either string or null.");
  });
});

describe('end to end: the audit levels that keep them', () => {
  let server: TestServer;
  const dir = tempDir('plinth-webhook-audit-');
  const logPath = path.join(dir, 'audit.log');
  const events = (): any[] => readFileSync(logPath, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

  before(async () => {
    writeFileSync(path.join(dir, 'policy.yaml'), [
      'apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: [RequestReceived]', 'rules:',
      '- level: Request', '  resources: [{group: "", resources: ["configmaps"]}]', '  namespaces: ["at-request"]',
      '- level: Metadata', '  resources: [{group: "", resources: ["configmaps"]}]',
      '- level: None', '',
    ].join('\n'));
    server = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: logPath });
  });
  after(() => server?.stop());

  test('a mutating webhook\'s patch annotation is kept at level Request, not Metadata; its mutation and a validating webhook\'s auditAnnotations at both', async () => {
    for (const name of ['at-request', 'at-metadata']) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
    hooks.handle('/e2e-patch', (review) => (review.request.namespace.startsWith('at-') ? patch([{ op: 'add', path: '/data/added', value: 'yes' }]) : allow()));
    hooks.handle('/e2e-check', () => ({ response: { allowed: true, auditAnnotations: { checked: 'yes' } } }));
    const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
    const selector = { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['at-request', 'at-metadata'] }] };
    const configure = async (collection: string, kind: string, webhook: Record<string, unknown>) => {
      const body = { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'audited' }, webhooks: [{ ...webhook, rules, namespaceSelector: selector }] };
      assert.equal((await server.request('POST', `/apis/admissionregistration.k8s.io/v1/${collection}`, { body })).status, 201);
    };
    await configure('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', hook('patcher.example.com', '/e2e-patch'));
    await configure('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', hook('checker.example.com', '/e2e-check'));
    const created = async (ns: string) => eventually(async () => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { generateName: 'c-' }, data: { a: '1' } } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.data.added, 'yes', 'the webhooks are configured');
      const event = await eventually(() => {
        const found = events().find((e) => e.auditID === res.headers['audit-id'] && e.stage === 'ResponseComplete');
        assert.ok(found);
        return found;
      });
      assert.ok(event.annotations['checker.example.com/checked'], JSON.stringify(event.annotations));
      return event;
    });
    const atRequest = await created('at-request');
    assert.equal(atRequest.level, 'Request');
    assert.equal(atRequest.annotations[mutation('round_0_index_0')], '{"configuration":"audited","webhook":"patcher.example.com","mutated":true}');
    assert.equal(atRequest.annotations[patched('round_0_index_0')], '{"configuration":"audited","webhook":"patcher.example.com","patch":[{"op":"add","path":"/data/added","value":"yes"}],"patchType":"JSONPatch"}');
    assert.equal(atRequest.annotations['checker.example.com/checked'], 'yes');
    const atMetadata = await created('at-metadata');
    assert.equal(atMetadata.level, 'Metadata');
    assert.equal(atMetadata.annotations[mutation('round_0_index_0')], '{"configuration":"audited","webhook":"patcher.example.com","mutated":true}');
    assert.equal(atMetadata.annotations[patched('round_0_index_0')], undefined);
  });
});
