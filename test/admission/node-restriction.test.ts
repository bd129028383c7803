// NodeRestriction with plain attributes: who it restricts, and the writes it holds to the
// node's own (CSRs, ResourceSlices, CSINodes, claim status, pods deleted) with upstream's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeObject } from '../../src/api/index.ts';
import { runInRequestContext, type RequestUser } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { csrSubject } from '../../src/admission/csr-subject.ts';
import { nodeRestriction } from '../../src/admission/node-restriction.ts';

const pods: Record<string, KubeObject> = {
  'ns/mine': { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mine', namespace: 'ns', uid: 'u1' }, spec: { nodeName: 'n1' } },
};
const plugin = nodeRestriction({
  pod: async (namespace, name) => pods[`${namespace}/${name}`],
  node: async (name) => (name === 'n1' ? { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: 'node-uid' } } : undefined),
});
const n1: RequestUser = { name: 'system:node:n1', uid: '', groups: ['system:nodes'] };

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'ns', name: '',
    object: undefined, oldObject: undefined, dryRun: false, namespaced: true, ...over,
  };
}

async function admit(user: RequestUser | undefined, a: AdmissionAttributes): Promise<string> {
  const run = async () => {
    try {
      await plugin.admit!(a);
      return 'allowed';
    } catch (err) {
      return (err as Error).message;
    }
  };
  return user === undefined ? run() : runInRequestContext({ user, addWarning: () => {} }, run);
}

test('only nodes are restricted; a node without a name is refused everything', async () => {
  const create = attrs({ object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } });
  assert.equal(await admit(undefined, create), 'allowed', 'in-process writes');
  assert.equal(await admit({ name: 'alice', uid: '', groups: ['system:nodes'] }, create), 'allowed');
  assert.equal(await admit({ name: 'system:node:n1', uid: '', groups: [] }, create), 'allowed', 'the name alone is no node');
  assert.equal(await admit({ name: 'system:node:', uid: '', groups: ['system:nodes'] }, create), 'pods "p" is forbidden: could not determine node from user "system:node:"');
  // Resources it does not know pass.
  assert.equal(await admit(n1, attrs({ resource: 'configmaps', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } })), 'allowed');
  assert.equal(await admit(n1, attrs({ subresource: 'exec', name: 'mine' })), 'pods "Unknown" is forbidden: unexpected pod subresource "exec", only \'status\' and \'eviction\' are allowed');
  assert.equal(await admit(n1, attrs({ operation: 'UPDATE', name: 'mine', object: pods['ns/mine'], oldObject: pods['ns/mine'] })),
    'pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods');
  assert.equal(await admit(n1, attrs({ operation: 'DELETE', name: 'gone' })), 'pods "gone" not found');
  assert.equal(await admit(n1, attrs({ operation: 'DELETE', name: 'mine' })), 'allowed');
});

test('a mirror pod is owned by the node as it is stored: its uid, a controller reference, no blockOwnerDeletion', async () => {
  const mirror = (owner: Record<string, unknown>, spec: Record<string, unknown> = {}) => attrs({
    object: {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'm', annotations: { 'kubernetes.io/config.mirror': 'x' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true, ...owner }] },
      spec: { nodeName: 'n1', ...spec },
    } as KubeObject,
  });
  assert.equal(await admit(n1, mirror({})), 'allowed');
  assert.equal(await admit(n1, mirror({ uid: 'other' })), 'pods "m" is forbidden: node n1 UID mismatch: expected other got node-uid');
  assert.equal(await admit(n1, mirror({ controller: false })), 'pods "m" is forbidden: node "n1" can only create pods with a controller owner reference set to itself');
  assert.equal(await admit(n1, mirror({ blockOwnerDeletion: true })), 'pods "m" is forbidden: node "n1" must not set blockOwnerDeletion on an owner reference');
  assert.equal(await admit(n1, mirror({ kind: 'ReplicaSet' })), 'pods "m" is forbidden: node "n1" can only create pods with an owner reference set to itself');
  assert.equal(await admit(n1, mirror({}, { serviceAccountName: 'sa' })), 'pods "m" is forbidden: node "n1" can not create pods that reference a service account');
  assert.equal(await admit(n1, mirror({}, { containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'x' } }] }] })), 'pods "m" is forbidden: node "n1" can not create pods that reference configmaps');
  assert.equal(await admit(n1, mirror({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] })), 'pods "m" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims');
  assert.equal(await admit(n1, mirror({}, { volumes: [{ name: 'v', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'p' } }] } }] })), 'pods "m" is forbidden: node "n1" can not create pods that reference clustertrustbundles');
});

test('CSINodes, ResourceSlices and a claim\'s status are the node\'s own', async () => {
  const csiNode = (name: string) => attrs({ group: 'storage.k8s.io', resource: 'csinodes', namespace: '', object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name } } });
  assert.equal(await admit(n1, csiNode('n1')), 'allowed');
  assert.equal(await admit(n1, csiNode('n2')), 'csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node');
  const slice = (nodeName: string) => ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 's' }, spec: { nodeName } }) as KubeObject;
  assert.equal(await admit(n1, attrs({ group: 'resource.k8s.io', resource: 'resourceslices', namespace: '', object: slice('n2') })),
    'resourceslices.resource.k8s.io "s" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node');
  assert.equal(await admit(n1, attrs({ operation: 'DELETE', group: 'resource.k8s.io', resource: 'resourceslices', namespace: '', name: 's', oldObject: slice('n2') })),
    'resourceslices.resource.k8s.io "Unknown" is forbidden: can only delete ResourceSlice with the same NodeName as the requesting node');
  const claim = (status: Record<string, unknown>, labels?: Record<string, string>) => ({
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', resourceVersion: String(Math.random()), ...(labels ? { labels } : {}) }, spec: {}, status,
  }) as KubeObject;
  const claimUpdate = (old: KubeObject, object: KubeObject) => attrs({ operation: 'UPDATE', resource: 'persistentvolumeclaims', subresource: 'status', name: 'c', object, oldObject: old });
  assert.equal(await admit(n1, claimUpdate(claim({ phase: 'Bound' }), claim({ phase: 'Bound', capacity: { storage: '2Gi' }, conditions: [] }))), 'allowed');
  assert.equal(await admit(n1, claimUpdate(claim({ phase: 'Bound' }), claim({ phase: 'Lost' }, { a: 'b' }))),
    'persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions: metadata.labels, status.phase');
  assert.equal(await admit(n1, attrs({ operation: 'UPDATE', resource: 'persistentvolumeclaims', name: 'c', object: claim({}), oldObject: claim({}) })),
    'persistentvolumeclaims "c" is forbidden: may only update PVC status');
});

test('a node CSR for a kubelet signer must name the node itself', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'plinth-node-csr-'));
  try {
    const csr = (cn: string) => {
      execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-subj', `/O=system:nodes/CN=${cn}`, '-out', path.join(dir, 'r.pem')], { stdio: 'ignore' });
      return readFileSync(path.join(dir, 'r.pem'), 'utf8');
    };
    const mine = csr('system:node:n1');
    const theirs = csr('system:node:n2');
    assert.deepEqual(csrSubject(mine), { commonName: 'system:node:n1', organizations: ['system:nodes'] });
    assert.deepEqual(csrSubject('junk'), { error: 'PEM block type must be CERTIFICATE REQUEST' });
    const create = (pem: string, signerName: string) => attrs({
      group: 'certificates.k8s.io', resource: 'certificatesigningrequests', namespace: '',
      object: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'r' }, spec: { request: Buffer.from(pem).toString('base64'), signerName } } as KubeObject,
    });
    assert.equal(await admit(n1, create(mine, 'kubernetes.io/kube-apiserver-client-kubelet')), 'allowed');
    assert.equal(await admit(n1, create(theirs, 'kubernetes.io/kubelet-serving')), 'certificatesigningrequests.certificates.k8s.io "r" is forbidden: can only create a node CSR with CN=system:node:n1');
    assert.equal(await admit(n1, create(theirs, 'example.com/other')), 'allowed', 'other signers check their own requests');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
