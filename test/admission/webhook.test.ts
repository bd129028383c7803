// The webhook plugins on their own, with configurations the v1 API can no longer create
// (sideEffects Some/Unknown, kept from older servers) and a real HTTPS webhook server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain, type AdmissionAttributes } from '../../src/admission/chain.ts';
import { WebhookAdmission } from '../../src/admission/webhook.ts';
import type { KubeObject } from '../../src/api/index.ts';
import { isStatusError } from '../../src/api/index.ts';
import { allow, patch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

let hooks: WebhookServer;
before(async () => {
  hooks = await startWebhookServer();
});
after(async () => {
  await hooks?.close();
});

function configuration(name: string, webhooks: Record<string, unknown>[]): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'X', metadata: { name, uid: name, resourceVersion: '1' }, webhooks } as KubeObject;
}

function hook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hooks.url}${path}`, caBundle: hooks.caBundle },
    rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    ...extra,
  };
}

function plugins(mutating: KubeObject[], validating: KubeObject[]): WebhookAdmission {
  return new WebhookAdmission({
    mutating: { list: async () => mutating },
    validating: { list: async () => validating },
    namespaceLabels: async () => ({}),
    log: () => {},
  });
}

function attrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: 'ConfigMap',
    namespace: 'default', name: 'cm', namespaced: true, dryRun: false, oldObject: undefined,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } },
    ...overrides,
  };
}

async function rejection(fn: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await fn();
  } catch (err) {
    assert.ok(isStatusError(err), String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('expected a rejection');
}

describe('sideEffects on dry run', () => {
  for (const sideEffects of ['Some', 'Unknown']) {
    test(`a dry run reaching a webhook with sideEffects ${sideEffects} fails with 400 and the webhook is not called`, async () => {
      const before = hooks.requests.length;
      const admission = plugins([], [configuration('c', [hook('effects.example.com', '/effects', { sideEffects, failurePolicy: 'Ignore' })])]);
      try {
        const err = await rejection(() => admission.validating.validate!(attrs({ dryRun: true })) as Promise<void>);
        assert.deepEqual(err, { code: 400, message: 'admission webhook "effects.example.com" does not support dry run' });
        assert.equal(hooks.requests.length, before);
        // Without dry run it is called.
        await admission.validating.validate!(attrs());
        assert.equal(hooks.requests.length, before + 1);
      } finally {
        admission.close();
      }
    });
  }

  test('the same holds for mutating webhooks', async () => {
    const admission = plugins([configuration('c', [hook('m.example.com', '/m', { sideEffects: 'Unknown' })])], []);
    try {
      const err = await rejection(() => admission.mutating.admit!(attrs({ dryRun: true })) as Promise<void>);
      assert.equal(err.code, 400);
    } finally {
      admission.close();
    }
  });
});

describe('admission configuration is exempt', () => {
  test('requests for webhook configurations never reach webhooks', async () => {
    const before = hooks.requests.length;
    const admission = plugins([], [configuration('c', [hook('all.example.com', '/all')])]);
    try {
      await admission.validating.validate!(attrs({ group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespace: '', namespaced: false }));
      assert.equal(hooks.requests.length, before);
    } finally {
      admission.close();
    }
  });
});

describe('reinvocation', () => {
  test('a webhook with reinvocationPolicy IfNeeded is called again when a later one changed the object', async () => {
    hooks.handle('/reinvoked', () => allow());
    hooks.handle('/changer', (review) => (review.request.object.metadata.labels?.changed === 'yes' ? allow() : patch([{ op: 'add', path: '/metadata/labels', value: { changed: 'yes' } }])));
    const admission = plugins([configuration('a', [
      hook('reinvoked.example.com', '/reinvoked', { reinvocationPolicy: 'IfNeeded' }),
      hook('never.example.com', '/never', { reinvocationPolicy: 'Never' }),
      hook('changer.example.com', '/changer'),
    ])], []);
    // A built-in plugin of the chain runs again too (a webhook may have added what it defaults).
    let builtIn = 0;
    const chain = new AdmissionChain([{ name: 'built-in', admit: () => void builtIn++ }, admission.mutating]);
    try {
      const a = attrs();
      await chain.admit(a);
      assert.equal(builtIn, 2);
      assert.equal(a.object!.metadata.labels?.changed, 'yes');
      assert.equal(a.mutated, true);
      assert.equal(hooks.received('/reinvoked').length, 2);
      assert.equal(hooks.received('/never').length, 1);
      assert.equal(hooks.received('/changer').length, 1);
      assert.equal(hooks.received('/reinvoked')[1]!.review.request.object.metadata.labels.changed, 'yes');
      // Nothing changed: one pass.
      hooks.handle('/changer', () => allow());
      builtIn = 0;
      await chain.admit(attrs());
      assert.equal(builtIn, 1);
      assert.equal(hooks.received('/reinvoked').length, 3);
    } finally {
      admission.close();
    }
  });
});

describe('AdmissionReview versions', () => {
  test('v1beta1 is sent when the webhook takes only it, and its response is read without the uid check', async () => {
    hooks.handle('/beta', () => ({ raw: JSON.stringify({ response: { allowed: false, status: { message: 'beta says no' } } }) }));
    const admission = plugins([], [configuration('c', [hook('beta.example.com', '/beta', { admissionReviewVersions: ['v1beta1'] })])]);
    try {
      const err = await rejection(() => admission.validating.validate!(attrs()) as Promise<void>);
      assert.equal(err.message, 'admission webhook "beta.example.com" denied the request: beta says no');
      assert.equal(hooks.received('/beta').at(-1)!.review.apiVersion, 'admission.k8s.io/v1beta1');
    } finally {
      admission.close();
    }
  });

  test('a webhook accepting no known version fails the call', async () => {
    const admission = plugins([], [configuration('c', [hook('v9.example.com', '/v9', { admissionReviewVersions: ['v9'] })])]);
    try {
      const err = await rejection(() => admission.validating.validate!(attrs()) as Promise<void>);
      assert.deepEqual(err, { code: 500, message: 'Internal error occurred: failed calling webhook "v9.example.com": webhook does not accept known AdmissionReview versions (v1, v1beta1)' });
    } finally {
      admission.close();
    }
  });

  test('a validating webhook may not patch', async () => {
    hooks.handle('/validating-patch', () => patch([]));
    const admission = plugins([], [configuration('c', [hook('vp.example.com', '/validating-patch')])]);
    try {
      const err = await rejection(() => admission.validating.validate!(attrs()) as Promise<void>);
      assert.equal(err.message, 'Internal error occurred: failed calling webhook "vp.example.com": received invalid webhook response: validating webhook may not return response.patch');
    } finally {
      admission.close();
    }
  });
});
