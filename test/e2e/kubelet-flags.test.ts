// The --kubelet-* flags kubeadm passes: which node address names a kubelet (where pods/log and
// nodes/proxy reach it, kubelet-proxy.test.ts; named in the answers of exec), and the client
// certificate files checked at start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureClientMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir } from '../helpers/server.ts';

const node = {
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' },
  status: { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'ExternalIP', address: '192.0.2.7' }, { type: 'InternalDNS', address: 'node-1.internal' }] },
};

test('a kubelet is named by the first address of the preferred types: upstream\'s order by default, --kubelet-preferred-address-types otherwise', async (t) => {
  for (const [types, expected] of [[undefined, 'node-1.internal:10250'], [['ExternalIP', 'InternalIP'], '192.0.2.7:10250']] as const) {
    const server = await startServer(types === undefined ? {} : { kubeletPreferredAddressTypes: [...types] });
    t.after(() => server.stop());
    assert.equal((await server.request('POST', '/api/v1/nodes', { body: node })).status, 201);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
    // exec is not passed to kubelets: its answer names the address it would dial.
    const exec = await server.request('GET', '/api/v1/namespaces/default/pods/p/exec?command=ls');
    assert.equal(exec.status, 500);
    assert.ok(exec.json.message.endsWith(`(node "node-1" at ${expected})`), exec.json.message);
  }
});

test('--kubelet-client-certificate and --kubelet-client-key are loaded at start: a missing file refuses it', async (t) => {
  const dir = tempDir('plinth-kubelet-client-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await ensureClientMaterial(dir);
  const pki = path.join(dir, 'pki');
  const server = await startServer({ kubeletClientCertificate: path.join(pki, 'admin.crt'), kubeletClientKey: path.join(pki, 'admin.key'), kubeletCertificateAuthority: path.join(pki, 'client-ca.crt') });
  await server.stop();
  await assert.rejects(startServer({ kubeletClientCertificate: path.join(pki, 'missing.crt'), kubeletClientKey: path.join(pki, 'admin.key') }), /^Error: kubelet client: ENOENT/);
  await assert.rejects(startServer({ kubeletCertificateAuthority: path.join(pki, 'admin.key') }), /kubelet client: data does not contain any valid RSA or ECDSA certificates/);
});
