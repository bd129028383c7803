// The --kubelet-* flags kubeadm passes: which node address names a kubelet (where pods/log,
// nodes/proxy and exec reach it, kubelet-proxy.test.ts and kubelet-upgrade.test.ts; named in
// a simulated node's answers), and the client certificate files checked at start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureClientMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir } from '../helpers/server.ts';

const node = {
  // Simulated: its kubelet is not dialed (these addresses lead nowhere), and the answers name the address.
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', annotations: { 'simulation.plinth.dev/simulated': 'true' } },
  status: { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'ExternalIP', address: '192.0.2.7' }, { type: 'InternalDNS', address: 'node-1.internal' }] },
};

test('a kubelet is named by the first address of the preferred types: upstream\'s order by default, --kubelet-preferred-address-types otherwise', async (t) => {
  for (const [types, expected] of [[undefined, 'node-1.internal:10250'], [['ExternalIP', 'InternalIP'], '192.0.2.7:10250']] as const) {
    const server = await startServer(types === undefined ? {} : { kubeletPreferredAddressTypes: [...types] });
    t.after(() => server.stop());
    assert.equal((await server.request('POST', '/api/v1/nodes', { body: node })).status, 201);
    const proxy = await server.request('GET', '/api/v1/nodes/node-1/proxy/metrics');
    assert.equal(proxy.status, 503);
    assert.ok(proxy.json.message.endsWith(`(node "node-1" at ${expected})`), proxy.json.message);
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
