// The kubeconfig written to the data dir, pointing clients at this server.
import { stringify } from 'yaml';
import { writeFileAtomic } from '../server/write-file-atomic.ts';

export interface KubeconfigOptions {
  /** The API server's URL, for example `https://127.0.0.1:6443`. */
  server: string;
  /** The CA that signed the serving certificate, PEM. */
  caPem: string;
  /** A bearer token of the token file, or a client certificate and its key (PEM). */
  token?: string;
  clientCertificate?: { certPem: string; keyPem: string };
  /** Name of the cluster, user and context entries, and the current context. Default `plinth`. */
  name?: string;
}

/** The kubeconfig document (client-go's clientcmd v1 Config) for one cluster, user and context. */
export function kubeconfigYaml(opts: KubeconfigOptions): string {
  const name = opts.name ?? 'plinth';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name, cluster: { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caPem).toString('base64') } },
    ],
    users: [{
      name,
      user: opts.clientCertificate !== undefined
        ? { 'client-certificate-data': Buffer.from(opts.clientCertificate.certPem).toString('base64'), 'client-key-data': Buffer.from(opts.clientCertificate.keyPem).toString('base64') }
        : { token: opts.token },
    }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
    preferences: {},
  };
  return stringify(config, { lineWidth: 0 });
}

/**
 * Writes a kubeconfig for `kubectl --kubeconfig <path>` and other clients: mode 0600,
 * since it holds a token, and atomically, so a client reading it while the server
 * starts sees the old file or the new one, never half of one.
 */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, kubeconfigYaml(opts), 0o600);
}
