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
  // the rest of writing the file. A value that could be read otherwise is double-quoted
  // (JSON's quoting, which YAML reads the same), so none can break the document.
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

/**
 * A value as a YAML scalar: plain when it cannot be read as anything else (a name, a URL,
 * base64), as YAML writers put it, else double-quoted.
 */
function q(value: string): string {
  return plainScalar.test(value) && !otherMeanings.test(value) ? value : JSON.stringify(value);
}

/** Starts with a letter, no spaces, nothing YAML gives a meaning (`: `, ` #`, quotes, flow brackets first). */
const plainScalar = /^[A-Za-z][A-Za-z0-9._\/+=:@%[\]-]*$/;
/** Words YAML 1.1 (and so Go's YAML) reads as booleans or null. */
const otherMeanings = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/**
 * Writes a kubeconfig for `kubectl --kubeconfig <path>` and other clients: mode 0600,
 * since it holds a token, and atomically, so a client reading it while the server
 * starts sees the old file or the new one, never half of one. Not synced to disk: every
 * start writes it again, so a crash that loses it loses nothing a start does not restore.
 */
export function writeKubeconfig(path: string, opts: KubeconfigOptions): void {
  writeFileAtomic(path, kubeconfigYaml(opts), 0o600, { sync: false });
}
