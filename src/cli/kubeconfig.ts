// The kubeconfig written to the data dir, pointing clients at this server.
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
  const name = q(opts.name ?? 'plinth');
  const user = opts.clientCertificate !== undefined
    ? ['    user:', `      client-certificate-data: ${q(base64(opts.clientCertificate.certPem))}`, `      client-key-data: ${q(base64(opts.clientCertificate.keyPem))}`]
    : opts.token !== undefined ? ['    user:', `      token: ${q(opts.token)}`] : ['    user: {}'];
  // Written out rather than by a YAML library: its first use at start-up cost more than
  // the rest of writing the file. Every value is a double-quoted scalar (JSON's quoting,
  // which YAML reads the same), so no value can be taken for another type or break the document.
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${name}`,
    '    cluster:',
    `      server: ${q(opts.server)}`,
    `      certificate-authority-data: ${q(base64(opts.caPem))}`,
    'users:',
    `  - name: ${name}`,
    ...user,
    'contexts:',
    `  - name: ${name}`,
    '    context:',
    `      cluster: ${name}`,
    `      user: ${name}`,
    `current-context: ${name}`,
    'preferences: {}',
    '',
  ].join('\n');
}

function q(value: string): string {
  return JSON.stringify(value);
}

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/**
 * Writes a kubeconfig for `kubectl --kubeconfig <path>` and other clients: mode 0600,
 * since it holds a token, and atomically, so a client reading it while the server
 * starts sees the old file or the new one, never half of one.
 */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, kubeconfigYaml(opts), 0o600);
}
