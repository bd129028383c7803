// A fake kubelet's TLS: its own CA and serving certificate, asking for a client certificate;
// and the server flags that present one to it and trust its CA, as kubeadm configures them.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { tempDir } from './server.ts';

export interface FakeKubeletTls {
  /** For https.createServer: the kubelet's certificate, a client certificate asked for but not required. */
  serverOptions: https.ServerOptions;
  /** The fingerprint of the client certificate the server presents. */
  clientFingerprint: string;
  /** The server's --kubelet-client-certificate, --kubelet-client-key and --kubelet-certificate-authority. */
  flags: { kubeletClientCertificate: string; kubeletClientKey: string; kubeletCertificateAuthority: string };
  /** The client certificate's directory (its pki/ca.crt is a CA the kubelet's certificate does not chain to). */
  clientDir: string;
}

export async function fakeKubeletTls(): Promise<FakeKubeletTls> {
  const kubeletDir = tempDir('plinth-kubelet-');
  const clientDir = tempDir('plinth-kubelet-client-');
  const material = await ensureServingMaterial(kubeletDir);
  const client = await ensureServingMaterial(clientDir);
  return {
    serverOptions: { cert: material.certPem, key: material.keyPem, requestCert: true, rejectUnauthorized: false },
    clientFingerprint: new X509Certificate(client.certPem).fingerprint256,
    flags: {
      kubeletClientCertificate: path.join(clientDir, 'pki/apiserver.crt'),
      kubeletClientKey: path.join(clientDir, 'pki/apiserver.key'),
      kubeletCertificateAuthority: path.join(kubeletDir, 'pki/ca.crt'),
    },
    clientDir,
  };
}

/** Starts the kubelet on a loopback port; the port. */
export async function listenOnLoopback(kubelet: https.Server): Promise<number> {
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  return (kubelet.address() as AddressInfo).port;
}
