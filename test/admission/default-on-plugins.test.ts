// The admission plugins upstream runs by default that default or hold back single fields:
// DefaultTolerationSeconds, TaintNodesByCondition, DefaultIngressClass,
// PersistentVolumeClaimResize, RuntimeClass and the certificate plugins, with plain attributes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeObject } from '../../src/api/index.ts';
import { runInRequestContext, type RequestUser } from '../../src/api/request-context.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/chain.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from '../../src/admission/certificates.ts';
import { defaultIngressClassAdmission } from '../../src/admission/default-ingress-class.ts';
import { defaultTolerationSeconds } from '../../src/admission/default-toleration-seconds.ts';
import { persistentVolumeClaimResize } from '../../src/admission/persistent-volume-claim-resize.ts';
import { mergeTolerations, runtimeClassAdmission } from '../../src/admission/runtime-class.ts';
import { taintNodesByCondition } from '../../src/admission/taint-nodes-by-condition.ts';

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'ns', name: 'p',
    object: undefined, oldObject: undefined, dryRun: false, namespaced: true, ...over,
  };
}

const object = (fields: Record<string, unknown>, name = 'p'): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name }, ...fields }) as KubeObject;

async function outcome(phase: 'admit' | 'validate', plugin: AdmissionPlugin, a: AdmissionAttributes, user?: RequestUser): Promise<string> {
  const run = async () => {
    try {
      await plugin[phase]!(a);
      return 'allowed';
    } catch (err) {
      return (err as Error).message;
    }
  };
  return user === undefined ? run() : runInRequestContext({ user, addWarning: () => {} }, run);
}

test('DefaultTolerationSeconds adds the not-ready and unreachable tolerations a pod lacks, on create and update', async () => {
  const plugin = defaultTolerationSeconds();
  const pod = object({ spec: {} });
  await outcome('admit', plugin, attrs({ object: pod }));
  assert.deepEqual((pod.spec as { tolerations: unknown }).tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  // A toleration of every key, or of every effect of a key, already tolerates them.
  const everything = object({ spec: { tolerations: [{ operator: 'Exists' }] } });
  await outcome('admit', plugin, attrs({ operation: 'UPDATE', object: everything }));
  assert.deepEqual((everything.spec as { tolerations: unknown }).tolerations, [{ operator: 'Exists' }]);
  const oneKey = object({ spec: { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }] } });
  await outcome('admit', plugin, attrs({ object: oneKey }));
  assert.equal((oneKey.spec as { tolerations: unknown[] }).tolerations.length, 2);
  // Not for subresources, nor other resources.
  const status = object({ spec: {} });
  await outcome('admit', plugin, attrs({ operation: 'UPDATE', subresource: 'status', object: status }));
  assert.deepEqual(status.spec, {});
});

test('DefaultTolerationSeconds gives the seconds of --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds', async () => {
  const pod = object({ spec: {} });
  await outcome('admit', defaultTolerationSeconds({ notReadySeconds: 60, unreachableSeconds: 120 }), attrs({ object: pod }));
  assert.deepEqual((pod.spec as { tolerations: Array<{ tolerationSeconds: number }> }).tolerations.map((t) => t.tolerationSeconds), [60, 120]);
});

test('TaintNodesByCondition taints a new Node not-ready unless it has that taint', async () => {
  const plugin = taintNodesByCondition();
  const node = object({ spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] } });
  await outcome('admit', plugin, attrs({ resource: 'nodes', namespace: '', object: node }));
  assert.deepEqual((node.spec as { taints: unknown }).taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
  const tainted = object({ spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', value: 'x' }] } });
  await outcome('admit', plugin, attrs({ resource: 'nodes', namespace: '', object: tainted }));
  assert.equal((tainted.spec as { taints: unknown[] }).taints.length, 1);
  const updated = object({ spec: {} });
  await outcome('admit', plugin, attrs({ operation: 'UPDATE', resource: 'nodes', namespace: '', object: updated }));
  assert.deepEqual(updated.spec, {}, 'only creates');
});

test('DefaultIngressClass names the newest default class unless the Ingress names one', async () => {
  const classes = [
    object({ metadata: { name: 'old', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } }),
    object({ metadata: { name: 'new', creationTimestamp: '2025-01-01T00:00:00Z', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } }),
    object({ metadata: { name: 'newest', creationTimestamp: '2026-01-01T00:00:00Z' } }),
  ];
  const plugin = defaultIngressClassAdmission(async () => classes);
  const ingress = (fields: Record<string, unknown>) => attrs({ group: 'networking.k8s.io', resource: 'ingresses', object: object(fields) });
  const plain = ingress({ spec: {} });
  await outcome('admit', plugin, plain);
  assert.equal((plain.object!.spec as { ingressClassName: string }).ingressClassName, 'new');
  const named = ingress({ spec: { ingressClassName: 'mine' } });
  await outcome('admit', plugin, named);
  assert.equal((named.object!.spec as { ingressClassName: string }).ingressClassName, 'mine');
  const legacy = ingress({ metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'nginx' } }, spec: {} });
  await outcome('admit', plugin, legacy);
  assert.equal((legacy.object!.spec as { ingressClassName?: string }).ingressClassName, undefined);
});

test('PersistentVolumeClaimResize: a claim grows only bound, in the same class, one that allows expansion', async () => {
  const classes: Record<string, KubeObject> = { fast: object({ allowVolumeExpansion: true }, 'fast'), slow: object({}, 'slow') };
  const plugin = persistentVolumeClaimResize(async (name) => classes[name]);
  const claim = (storage: string, className: string, phase = 'Bound') => object({ spec: { storageClassName: className, resources: { requests: { storage } } }, status: { phase } }, 'c');
  const update = (old: KubeObject, next: KubeObject) => attrs({ operation: 'UPDATE', resource: 'persistentvolumeclaims', name: 'c', object: next, oldObject: old });
  assert.equal(await outcome('validate', plugin, update(claim('1Gi', 'fast'), claim('2Gi', 'fast'))), 'allowed');
  assert.equal(await outcome('validate', plugin, update(claim('2Gi', 'slow'), claim('1024Mi', 'slow'))), 'allowed', 'not growing');
  assert.equal(await outcome('validate', plugin, update(claim('1Gi', 'slow'), claim('2Gi', 'slow'))),
    'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  assert.equal(await outcome('validate', plugin, update(claim('1Gi', 'fast', 'Pending'), claim('2Gi', 'fast'))),
    'persistentvolumeclaims "c" is forbidden: Only bound persistent volume claims can be expanded');
});

test('RuntimeClass: overhead and scheduling from the class, a missing class or a conflict refused', async () => {
  const classes: Record<string, KubeObject> = {
    kata: object({ handler: 'kata', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { sandbox: 'kata' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] } }, 'kata'),
  };
  const plugin = runtimeClassAdmission(async (name) => classes[name]);
  const pod = (spec: Record<string, unknown>) => attrs({ object: object({ spec: { runtimeClassName: 'kata', ...spec } }) });
  const admitted = pod({ nodeSelector: { zone: 'a' }, tolerations: [{ operator: 'Exists' }] });
  assert.equal(await outcome('admit', plugin, admitted), 'allowed');
  assert.deepEqual(admitted.object!.spec, {
    runtimeClassName: 'kata', overhead: { cpu: '250m', memory: '120Mi' }, nodeSelector: { zone: 'a', sandbox: 'kata' },
    // The pod's toleration of everything covers the class's.
    tolerations: [{ operator: 'Exists' }],
  });
  assert.equal(await outcome('validate', plugin, admitted), 'allowed');
  assert.equal(await outcome('admit', plugin, pod({ nodeSelector: { sandbox: 'gvisor' } })),
    'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor');
  assert.equal(await outcome('admit', plugin, pod({ overhead: { cpu: '1' } })), 'pods "p" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead');
  assert.equal(await outcome('admit', plugin, pod({ runtimeClassName: 'missing' })), 'pods "p" is forbidden: pod rejected: RuntimeClass "missing" not found');
  assert.equal(await outcome('validate', plugin, attrs({ object: object({ spec: { overhead: { cpu: '1' } } }) })), 'pods "p" is forbidden: pod rejected: Overhead provided but not defined in RuntimeClass');
  assert.deepEqual(mergeTolerations(
    [{ key: 'a', operator: 'Equal', value: 'x', effect: 'NoExecute', tolerationSeconds: 10 }],
    [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }, { key: 'b', operator: 'Exists' }, { key: 'b', operator: 'Exists' }],
  ), [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }, { key: 'b', operator: 'Exists' }]);
});

test('the certificate plugins: approve and sign need the signer (or its domain\'s wildcard); no client certificate for system:masters', async () => {
  const alice: RequestUser = { name: 'alice', uid: '', groups: [] };
  const asked: string[] = [];
  const allowed = new Set(['approve example.com/*', 'sign example.com/signer']);
  const authorize = async (_user: RequestUser, verb: string, signer: string) => {
    asked.push(`${verb} ${signer}`);
    return allowed.has(`${verb} ${signer}`);
  };
  const csr = (signerName: string, status: Record<string, unknown> = {}, request = '') => object({ spec: { signerName, request }, status }, 'r');
  const write = (subresource: string, old: KubeObject, next: KubeObject) => attrs({ operation: 'UPDATE', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource, namespace: '', name: 'r', object: next, oldObject: old });
  const approval = certificateApproval(authorize);
  assert.equal(await outcome('validate', approval, write('approval', csr('example.com/signer'), csr('example.com/signer')), alice), 'allowed');
  assert.deepEqual(asked, ['approve example.com/signer', 'approve example.com/*']);
  assert.equal(await outcome('validate', approval, write('approval', csr('kubernetes.io/kube-apiserver-client'), csr('kubernetes.io/kube-apiserver-client')), alice),
    'certificatesigningrequests.certificates.k8s.io "r" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"');
  assert.equal(await outcome('validate', approval, write('approval', csr('other.io/x'), csr('other.io/x'))), 'allowed', 'in-process writes are not asked about');
  const signing = certificateSigning(authorize);
  assert.equal(await outcome('validate', signing, write('status', csr('example.com/signer'), csr('example.com/signer', { certificate: 'Y2VydA==' })), alice), 'allowed');
  assert.equal(await outcome('validate', signing, write('status', csr('other.io/x'), csr('other.io/x', { certificate: 'Y2VydA==' })), alice),
    'certificatesigningrequests.certificates.k8s.io "r" is forbidden: user not permitted to sign requests with signerName "other.io/x"');
  assert.equal(await outcome('validate', signing, write('status', csr('other.io/x'), csr('other.io/x')), alice), 'allowed', 'nothing signed');

  const dir = mkdtempSync(path.join(tmpdir(), 'plinth-csr-subject-'));
  try {
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-subj', '/O=system:masters/CN=mallory', '-out', path.join(dir, 'r.pem')], { stdio: 'ignore' });
    const request = Buffer.from(readFileSync(path.join(dir, 'r.pem'))).toString('base64');
    const create = (signerName: string) => attrs({ group: 'certificates.k8s.io', resource: 'certificatesigningrequests', namespace: '', object: csr(signerName, {}, request) });
    assert.equal(await outcome('validate', certificateSubjectRestriction(), create('kubernetes.io/kube-apiserver-client')),
      'certificatesigningrequests.certificates.k8s.io "r" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    assert.equal(await outcome('validate', certificateSubjectRestriction(), create('example.com/signer')), 'allowed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
